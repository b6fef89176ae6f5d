package dev.efferent.router;

import dev.efferent.core.tools.ParamsSchema;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerRegister;

import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One registered worker's state. Touched only on the router's thread. */
final class WorkerSession {
    final String id;
    final String name;
    final String hostname;
    final String platform;
    final boolean local;
    final WorkerLink link;
    final int maxConcurrency;
    final Instant connectedAt;
    final Map<String, ToolDescriptor> tools = new LinkedHashMap<>();
    /** Tasks dispatched to it and not yet answered by a result, including cancelled ones still stopping. */
    final Map<String, Inflight> inflight = new LinkedHashMap<>();
    private final Connection connection;
    /** Of its tasks in flight, those cancelled or timed out and still stopping. */
    int stopping;
    /** When this worker's leases were last renewed on its heartbeat. */
    Instant leasesRenewedAt = Instant.EPOCH;
    double loadAverage = -1;
    boolean online = true;
    /** It said it was busy: no claims for it until a slot frees up. */
    boolean full;
    /** It is shutting down: no more claims for it on this connection. */
    boolean draining;
    /** The {@link RouterState#workEpoch} at which a claim for it found less than it asked for; -1 if none did. */
    long drainedAt = -1;

    /** The compiled input schema of each tool, to check params before a call is sent. */
    Map<String, ParamsSchema> schemas;
    /** Tools it refused as unknown on this connection: never sent to it again, whatever its later lists say. */
    final Set<String> refusedTools = new HashSet<>();

    WorkerSession(WorkerRegister register, String name, Connection connection, Instant now,
                  Map<String, ParamsSchema> schemas) {
        this.connection = connection;
        this.schemas = Map.copyOf(schemas);
        this.id = register.workerId();
        this.name = name;
        this.hostname = register.hostname();
        this.platform = register.platform();
        this.local = connection.local;
        this.link = connection.link;
        this.maxConcurrency = register.maxConcurrentTasks();
        this.connectedAt = now;
        connection.lastHeartbeat = now;
        register.capabilities().forEach(d -> tools.put(d.name(), d));
    }

    /** Its tool list now ({@code worker:tools}), with their compiled schemas. */
    void replaceTools(List<ToolDescriptor> now, Map<String, ParamsSchema> compiled) {
        tools.clear();
        now.forEach(d -> tools.put(d.name(), d));
        schemas = Map.copyOf(compiled);
    }

    Instant lastHeartbeat() {
        return connection.lastHeartbeat;
    }

    Connection connection() {
        return connection;
    }

    int freeSlots() {
        return full || draining || !online ? 0 : Math.max(0, maxConcurrency - inflight.size());
    }

    double load() {
        return (double) inflight.size() / maxConcurrency;
    }

    Set<String> toolNames() {
        return Set.copyOf(tools.keySet());
    }

    WorkerInfo info() {
        return new WorkerInfo(id, name, hostname, platform, local, online, connectedAt, lastHeartbeat(),
                inflight.size() - stopping, maxConcurrency, loadAverage,
                List.copyOf(tools.keySet()));
    }
}
