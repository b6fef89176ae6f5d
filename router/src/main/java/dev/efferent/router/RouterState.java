package dev.efferent.router;

import dev.efferent.core.tools.CatalogEntry;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskNotFoundException;
import dev.efferent.tools.spi.Placement;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
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
    /**
     * Tasks admitted here and not yet dispatched, by id: the tool as their params were checked against on admission.
     * A worker whose copy is that one gets them without a second check (in memory: after a restart, they are checked).
     */
    final Map<String, ToolDescriptor> checkedAgainst = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ToolDescriptor> eldest) {
            // Bounded: a task another brain dispatches or ends leaves its entry here; dropping one costs a check.
            return size() > 10_000;
        }
    };
    /**
     * The brain's own tools as the in-process worker's copies were made from them (updated with them, on the router's
     * thread): its runner does not check again a call to a tool that is still one of these.
     */
    volatile Map<String, CatalogEntry> localEntries = Map.of();
    /** The last progress of each task running here; read from any thread (REST, console). */
    final Map<String, Progress> progress = new ConcurrentHashMap<>();
    /** When each task's progress was last written to the queue (nanoTime). */
    final Map<String, Long> progressStored = new HashMap<>();
    final Map<String, List<CompletableFuture<Task>>> waiters = new HashMap<>();
    /** Who waits for a task until it finishes or waits for an offline machine (Waits.finishedOrOffline). */
    final Map<String, List<CompletableFuture<Awaited>>> offlineWatch = new HashMap<>();
    /**
     * Tasks queued here and not seen to finish (the most recent {@value #UNFINISHED_KEPT}): a caller waiting for one
     * is registered without reading the queue; the poll of waiters catches one that finished elsewhere.
     */
    final Map<String, Boolean> unfinished = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > UNFINISHED_KEPT;
        }
    };
    static final int UNFINISHED_KEPT = 10_000;
    /** Read from any thread (Router.activeWorker); written on the router's. */
    final Map<String, String> activeWorkers = new ConcurrentHashMap<>();
    final List<RouterListener> listeners = new CopyOnWriteArrayList<>();
    /** The brain's own tools, used to check params before a task is queued. */
    Optional<LocalToolExecutor> localTools = Optional.empty();
    /** The workers seen, kept in the store (namespace router.workers). */
    final KnownWorkers known;
    /** Tools known only from a remembered worker: the first live worker to offer one replaces its descriptor. */
    final Set<String> rememberedTools = new HashSet<>();

    /**
     * Counts the moments work may have become claimable (an enqueue, an approval, a task put back, another brain's
     * notice, a poll); a worker whose last claim came back short at the current count has nothing to claim yet.
     */
    long workEpoch;

    /** Bumped whenever the tools known or who offers them change: the published list is rebuilt only then. */
    long toolsVersion;
    /** Dispatched tasks cancelled or timed out whose workers are still stopping them: not counted as running. */
    private int stopping;

    /** Answers a caller once the turn's view is published (RouterLoop.later). */
    private final Consumer<Runnable> later;

    RouterState(KnownWorkers known, Consumer<Runnable> later) {
        this.known = known;
        this.later = later;
    }

    /** Runs {@code answer} once this turn's view is published: whoever is answered reads the router as it left it. */
    void answerLater(Runnable answer) {
        later.accept(answer);
    }

    /** Work may have become claimable: the next claim for each worker is made, not skipped. */
    void workMayBeQueued() {
        workEpoch++;
    }

    /** Most offline workers remembered; the longest silent are forgotten first. */
    static final int MAX_OFFLINE = 1000;

    /**
     * Forgets offline workers last heard more than {@code after} ago, and the oldest beyond {@link #MAX_OFFLINE};
     * then the tools nobody has any more. Returns the names of the workers forgotten.
     */
    List<String> forget(Instant now, Duration after) {
        List<String> forgotten = new ArrayList<>();
        List<WorkerInfo> byAge = offline.values().stream().filter(w -> !sessions.containsKey(w.id()))
                .sorted(Comparator.comparing(WorkerInfo::lastHeartbeat)).toList();
        int excess = Math.max(0, byAge.size() - MAX_OFFLINE);
        for (int i = 0; i < byAge.size(); i++) {
            WorkerInfo w = byAge.get(i);
            if (i < excess || Duration.between(w.lastHeartbeat(), now).compareTo(after) > 0) {
                offline.remove(w.id());
                known.forget(w.id());
                activeWorkers.values().removeIf(w.id()::equals);
                forgotten.add(w.name());
            }
        }
        if (!forgotten.isEmpty()) {
            pruneKnownTools();
        }
        return forgotten;
    }

    /** Keeps only the tools some online or remembered offline worker (or the brain itself) offers. */
    void pruneKnownTools() {
        Set<String> kept = new HashSet<>();
        sessions.values().forEach(s -> kept.addAll(s.tools.keySet()));
        offline.values().forEach(w -> kept.addAll(w.tools()));
        localTools.ifPresent(local -> kept.addAll(local.catalog().names()));
        knownTools.keySet().retainAll(kept);
        toolsChanged();
    }

    /** The tools known, or who offers them, changed. */
    void toolsChanged() {
        toolsVersion++;
    }

    /** Cancels or times out a dispatched task here; its worker is told by the caller. */
    void stop(Inflight f) {
        f.on(Inflight.Event.STOPPED);
        stopping++;
        f.session.stopping++;
    }

    /** {@code wanted}, or {@code wanted-2}, {@code -3}, … when another online worker already has that name. */
    String uniqueName(String wanted, String id) {
        Set<String> taken = new HashSet<>();
        sessions.values().stream().filter(s -> !s.id.equals(id)).forEach(s -> taken.add(s.name));
        String name = wanted;
        for (int n = 2; taken.contains(name); n++) {
            name = wanted + "-" + n;
        }
        return name;
    }

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
                .map(d -> new ToolInfo(d, settings.placementOf(d.name(), placement(d)),
                        sessions.values().stream().filter(s -> s.tools.containsKey(d.name())).map(s -> s.name).toList(),
                        origins.getOrDefault(d.name(), d.origin())))
                .toList();
    }

    int runningCount() {
        return inflight.size() - stopping;
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

    WorkerInfo setActiveWorker(String session, String worker) {
        String id = findWorker(worker).orElseThrow(() -> new RouterException(RouterException.Kind.BAD_REQUEST,
                "no worker named '" + worker + "'; known workers: " + workerNames()));
        activeWorkers.put(session, id);
        WorkerSession s = sessions.get(id);
        return s != null ? s.info() : offline.get(id);
    }

    Optional<String> activeWorker(String session) {
        return Optional.ofNullable(activeWorkers.get(session));
    }

    /** Where {@code tool} says it runs (the codec admits only the enum's names). */
    static Placement placement(ToolDescriptor tool) {
        return Placement.valueOf(tool.placement());
    }

    /** Stops tracking a dispatched task. */
    void forget(Inflight f) {
        if (inflight.remove(f.task.id(), f) && f.stopping()) {
            stopping--;
        }
        progress.remove(f.task.id());
        progressStored.remove(f.task.id());
        if (f.session.inflight.remove(f.task.id(), f) && f.stopping()) {
            f.session.stopping--;
        }
        if (f.deadline != null) {
            f.deadline.cancel(false);
        }
    }

    /** A task finished: tell the listeners and whoever waits for it. */
    void finished(Task task) {
        checkedAgainst.remove(task.id());
        offlineWatch.remove(task.id());
        progress.remove(task.id());
        progressStored.remove(task.id());
        listeners.forEach(l -> l.finished(task));
        completeWaiters(task);
    }

    /**
     * Answers whoever waits for {@code task}, which ended elsewhere (another brain decided first) while it was in
     * flight here: a waiter for a dispatched task is not answered by the polls, which skip tasks in flight.
     */
    void completeWaiters(Task task) {
        unfinished.remove(task.id());
        offlineWatch.remove(task.id());
        List<CompletableFuture<Task>> waiting = waiters.remove(task.id());
        if (waiting != null) {
            answerLater(() -> waiting.forEach(w -> w.complete(task)));
        }
    }

    /**
     * How loud a queue failure is: a task that had already ended or is gone is routine (DEBUG); anything else, a
     * database that does not answer, is a WARNING, never hidden.
     */
    static System.Logger.Level level(QueueException e) {
        return e instanceof IllegalTransitionException
                || e instanceof TaskNotFoundException
                ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING;
    }
}
