package dev.efferent.router;

import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.Task;
import dev.efferent.tools.spi.Placement;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** What the router knows: workers, tools, dispatched tasks and who waits for them. Router thread only. */
final class RouterState {
    /** Online workers by id. */
    final Map<String, WorkerSession> sessions = new LinkedHashMap<>();
    /** Workers seen since start that went offline, by id. */
    final Map<String, WorkerInfo> offline = new LinkedHashMap<>();
    /** Every tool seen: the brain's own and those workers advertised. */
    final Map<String, ToolDescriptor> knownTools = new LinkedHashMap<>();
    /** Where the brain's own tools came from. */
    final Map<String, String> origins = new HashMap<>();
    /** Dispatched tasks by id. */
    final Map<String, Inflight> inflight = new HashMap<>();
    final Map<String, List<CompletableFuture<Task>>> waiters = new HashMap<>();
    final Map<String, String> activeWorkers = new HashMap<>();
    final List<RouterListener> listeners = new CopyOnWriteArrayList<>();
    /** The brain's own tools, used to check params before a task is queued. */
    Optional<LocalToolExecutor> localTools = Optional.empty();

    List<WorkerInfo> workers() {
        List<WorkerInfo> all = new ArrayList<>();
        sessions.values().forEach(s -> all.add(s.info()));
        offline.values().stream().filter(w -> !sessions.containsKey(w.id())).forEach(all::add);
        all.sort(Comparator.comparing((WorkerInfo w) -> !w.online()).thenComparing(WorkerInfo::name));
        return all;
    }

    List<ToolInfo> tools(RouterSettings settings) {
        return knownTools.values().stream()
                .sorted(Comparator.comparing(ToolDescriptor::name))
                .map(d -> new ToolInfo(d, settings.placementOf(d.name(), Placement.valueOf(d.placement())).name(),
                        sessions.values().stream().filter(s -> s.tools.containsKey(d.name())).map(s -> s.name).toList(),
                        origins.getOrDefault(d.name(), d.origin())))
                .toList();
    }

    int runningCount() {
        return (int) inflight.values().stream().filter(f -> !f.cancelled).count();
    }

    /** The online or once-seen worker whose name or id is {@code nameOrId}. */
    Optional<String> findWorker(String nameOrId) {
        for (WorkerSession s : sessions.values()) {
            if (s.id.equals(nameOrId) || s.name.equals(nameOrId)) {
                return Optional.of(s.id);
            }
        }
        return offline.values().stream().filter(w -> w.id().equals(nameOrId) || w.name().equals(nameOrId))
                .map(WorkerInfo::id).findFirst();
    }

    String workerName(String id) {
        WorkerSession s = sessions.get(id);
        if (s != null) {
            return s.name;
        }
        WorkerInfo w = offline.get(id);
        return w == null ? id : w.name();
    }

    List<String> workerNames() {
        return workers().stream().filter(w -> !w.local()).map(WorkerInfo::name).distinct().toList();
    }

    WorkerInfo setActiveWorker(String requester, String worker) {
        String id = findWorker(worker).orElseThrow(() -> new RouterException(RouterException.Kind.BAD_REQUEST,
                "no worker named '" + worker + "'; known workers: " + workerNames()));
        activeWorkers.put(requester, id);
        WorkerSession s = sessions.get(id);
        return s != null ? s.info() : offline.get(id);
    }

    Optional<String> activeWorker(String requester) {
        return Optional.ofNullable(activeWorkers.get(requester));
    }
}
