package dev.efferent.protocol;

import java.util.List;
import java.util.Objects;

/**
 * {@code worker:register}, worker to brain, the first frame on every connection.
 *
 * @param protocolVersion    the protocol version the worker speaks ({@link Message#PROTOCOL_VERSION})
 * @param workerId           the worker's persistent id, stable across restarts
 * @param name               a human name, e.g. {@code laptop}
 * @param hostname           the machine's host name
 * @param platform           operating system and architecture, e.g. {@code linux-amd64}
 * @param capabilities       the tools the worker can run
 * @param maxConcurrentTasks how many tasks it runs at once, at least 1
 */
public record WorkerRegister(int protocolVersion,
                             String workerId,
                             String name,
                             String hostname,
                             String platform,
                             List<ToolDescriptor> capabilities,
                             int maxConcurrentTasks) implements Message {
    public static final String TYPE = "worker:register";

    public WorkerRegister {
        Checks.range(protocolVersion, 1, Integer.MAX_VALUE, "protocolVersion");
        Checks.text(workerId, "workerId");
        Checks.text(name, "name");
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(platform, "platform");
        capabilities = List.copyOf(capabilities);
        Checks.range(maxConcurrentTasks, 1, WireLimits.MAX_CONCURRENCY, "maxConcurrentTasks");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
