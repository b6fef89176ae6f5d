package dev.efferent.router;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.tools.DurationText;
import dev.efferent.core.tools.ParamsSchema;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.ClaimRequest;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.QueueEvents;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.tools.spi.Placement;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * Dispatch: claiming tasks for workers with free slots and sending them, deadlines, and telling a worker to stop
 * a task. Runs on the router's thread only.
 */
final class Dispatch {
    private static final System.Logger LOG = System.getLogger(Dispatch.class.getName());
    private final RouterSettings settings;
    private final TaskQueue queue;
    private final Clock clock;
    private final RouterState state;
    private final BiFunction<Runnable, Duration, Future<?>> scheduler;

    Dispatch(RouterSettings settings, TaskQueue queue, Clock clock, RouterState state,
             BiFunction<Runnable, Duration, Future<?>> scheduler) {
        this.settings = settings;
        this.queue = queue;
        this.clock = clock;
        this.state = state;
        this.scheduler = scheduler;
    }

    /** Online workers that could run {@code task}: its target only, else the session's active worker, then the least loaded. */
    List<WorkerSession> candidates(Task task) {
        return candidates(task.tool(), task.targetWorker().map(Set::of).orElse(Set.of()),
                task.session().flatMap(state::activeWorker).map(Set::of).orElse(Set.of()));
    }

    /**
     * Online workers that offer {@code tool}: only those in {@code targets} unless it is empty; those in {@code active}
     * (the session's active worker, if any) first, then the least loaded.
     */
    private List<WorkerSession> candidates(String tool, Set<String> targets, Set<String> active) {
        List<WorkerSession> list = new ArrayList<>(state.sessions.values().stream()
                .filter(s -> s.tools.containsKey(tool))
                .filter(s -> targets.isEmpty() || targets.contains(s.id))
                .toList());
        list.sort(Comparator.comparing((WorkerSession s) -> !active.contains(s.id))
                .thenComparingDouble(WorkerSession::load));
        return list;
    }

    /**
     * The tools {@code s} may claim tasks of: all of its own, except that the brain leaves a HYBRID tool to the
     * workers while one that offers it is online (a worker preferred; the brain when none is there).
     */
    private Set<String> claimable(WorkerSession s) {
        if (!s.local || !settings.handsEnabled()) {
            return s.toolNames();
        }
        Set<String> tools = new HashSet<>(s.toolNames());
        tools.removeIf(name -> RouterState.placement(s.tools.get(name)) == Placement.HYBRID
                && state.sessions.values().stream().anyMatch(w -> !w.local && w.online && w.tools.containsKey(name)));
        return tools;
    }

    /**
     * The worker a new task may be claimed for as it is queued ({@link TaskQueue#addAll(List, List, Duration)}): the
     * one a claim right after queueing it would have come from (the first of its candidates with a free slot that may
     * claim its tool; {@code planned} counts the slots given to earlier tasks of the same batch), if that worker's
     * last claim found no more work for it and nothing was queued since, so the task overtakes none that waits.
     * Empty when it must be queued and claimed as usual.
     */
    Optional<WorkerSession> claimerOnAdd(NewTask spec, Map<WorkerSession, Integer> planned) {
        for (WorkerSession s : candidates(spec.tool(), spec.targetWorker().map(Set::of).orElse(Set.of()),
                spec.session().flatMap(state::activeWorker).map(Set::of).orElse(Set.of()))) {
            if (s.freeSlots() > planned.getOrDefault(s, 0) && claimable(s).contains(spec.tool())) {
                return s.drainedAt == state.workEpoch ? Optional.of(s) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Sends a task claimed for {@code s} as it was queued; the worker's claims are as they were. */
    void dispatchClaimed(WorkerSession s, Task task) {
        dispatch(s, task);
    }

    /** Claims work for the worker's free slots and dispatches it. */
    void pump(WorkerSession s) {
        int free = s.freeSlots();
        if (free == 0 || s.tools.isEmpty()) {
            return;
        }
        Set<String> tools = claimable(s);
        if (tools.isEmpty()) {
            return;
        }
        List<Task> claimed;
        long epoch = state.workEpoch;
        try {
            claimed = queue.claim(new ClaimRequest(s.id, tools, free, settings.lease()));
        } catch (QueueException e) {
            s.drainedAt = -1;
            LOG.log(Level.WARNING, "Could not claim tasks for worker " + s.name, e);
            return;
        }
        s.drainedAt = claimed.size() < free ? epoch : -1;
        claimed.forEach(t -> dispatch(s, t));
    }

    /**
     * Claims for a slot that just freed up, unless this worker's last claim found the queue without work for it and
     * nothing was queued since: at low load that claim would find nothing, and it would hold up the router's thread.
     */
    void refill(WorkerSession s) {
        if (s.drainedAt != state.workEpoch) {
            pump(s);
        }
    }

    /** Something changed that may have made work claimable: a claim for every worker with free slots. */
    void pumpAll() {
        state.workMayBeQueued();
        state.sessions.values().stream().sorted(Comparator.comparingDouble(WorkerSession::load)).toList()
                .forEach(this::pump);
    }

    private void dispatch(WorkerSession s, Task task) {
        Instant now = clock.instant();
        ToolDescriptor tool = s.tools.get(task.tool());
        Inflight f = new Inflight(task, s, tool != null && (tool.readOnly() || tool.idempotent()), now);
        TaskDispatch message;
        try {
            message = new TaskDispatch(task.id(), task.tool(), parseParams(task.params()), task.priority(),
                    task.timeout().toMillis(), task.attempt(), task.session().orElse(""));
        } catch (IllegalStateException e) {
            LOG.log(Level.ERROR, "Task " + task.id() + " cannot be dispatched", e);
            state.finished(queue.fail(task.id(), e.getMessage(), false));
            return;
        }
        // Checked against the schema of the worker that will run it: its copy of the tool may differ from others'.
        // Once: not again if the params were checked on admission against this very copy.
        ToolDescriptor checked = state.checkedAgainst.remove(task.id());
        ParamsSchema schema = checked != null && checked.equals(tool) ? null : s.schemas.get(task.tool());
        List<String> problems = schema == null ? List.of() : schema.validate(message.params());
        if (!problems.isEmpty()) {
            String why = "invalid params for " + task.tool() + " on " + s.name + ": " + String.join("; ", problems);
            LOG.log(Level.INFO, "Task {0} not sent: {1}", task.id(), why);
            state.finished(queue.fail(task.id(), why, false));
            return;
        }
        f.deadline = scheduler.apply(() -> timeOut(task.id(), f), task.timeout());
        state.inflight.put(task.id(), f);
        s.inflight.put(task.id(), f);
        s.link.send(message);
        Duration waited = Duration.between(task.createdAt(), now);
        LOG.log(Level.DEBUG, "Task {0} ({1}) dispatched to {2}, attempt {3}", task.id(), task.tool(), s.name,
                task.attempt());
        state.listeners.forEach(l -> l.dispatched(task, s.id, waited));
    }

    private void timeOut(String taskId, Inflight f) {
        if (state.inflight.get(taskId) != f || f.stopping() || f.storing()) {
            // A result that came in time, being stored, is not overtaken by its deadline.
            return;
        }
        String reason = "timed out after " + DurationText.of(f.task.timeout());
        state.stop(f);
        f.session.link.send(new TaskCancel(taskId, reason));
        try {
            Task failed = queue.fail(taskId, reason, false);
            LOG.log(Level.WARNING, "Task {0} ({1}) on {2} {3}", taskId, f.task.tool(), f.session.name, reason);
            state.finished(failed);
        } catch (QueueException e) {
            LOG.log(RouterState.level(e), "Task {0} timed out but had already ended: {1}", taskId, e.getMessage());
            try {
                queue.get(taskId).filter(t -> t.status().isFinished()).ifPresent(state::completeWaiters);
            } catch (QueueException unread) {
                LOG.log(Level.WARNING, "Could not read task {0}, which timed out: {1}", taskId, unread.getMessage());
            }
        }
    }

    /** What this router does when another process changes the shared queue. */
    QueueEvents queueEvents(Consumer<Runnable> post) {
        AtomicBoolean pumpPending = new AtomicBoolean();
        return new QueueEvents() {
            @Override
            public void workAvailable() {
                // Coalesce a burst of wake-ups into one pass over the workers.
                if (pumpPending.compareAndSet(false, true)) {
                    post.accept(() -> {
                        pumpPending.set(false);
                        pumpAll();
                    });
                }
            }

            @Override
            public void taskFinished(String taskId) {
                post.accept(() -> finishedElsewhere(taskId));
            }

            @Override
            public void taskCancelled(String taskId) {
                post.accept(() -> stopOnWorker(taskId, "cancelled"));
            }
        };
    }

    /** Completes the waiters of a task another brain finished. */
    void finishedElsewhere(String taskId) {
        if (!state.waiters.containsKey(taskId)) {
            // A notice: no one waits here, but one who asks later must read it.
            state.unfinished.remove(taskId);
            return;
        }
        Optional<Task> task = queue.get(taskId);
        if (task.isEmpty()) {
            state.unfinished.remove(taskId);
            // Gone (deleted once finished long ago): whoever waits is told so rather than left waiting.
            List<CompletableFuture<Task>> waiting = state.waiters.remove(taskId);
            waiting.forEach(w -> w.completeExceptionally(new RouterException(RouterException.Kind.NOT_FOUND,
                    "no task with id '" + taskId + "'")));
            return;
        }
        task.filter(t -> t.status().isFinished()).ifPresent(state::finished);
    }

    /** Tells the worker running {@code taskId}, if any, to stop; it stays in flight until its result arrives. */
    void stopOnWorker(String taskId, String reason) {
        Inflight f = state.inflight.get(taskId);
        if (f != null && !f.stopping()) {
            state.stop(f);
            if (f.deadline != null) {
                f.deadline.cancel(false);
            }
            f.session.link.send(new TaskCancel(taskId, reason));
        }
    }

    private static ObjectNode parseParams(String json) {
        try {
            return (ObjectNode) Router.JSON.readTree(json);
        } catch (JsonProcessingException | ClassCastException e) {
            throw new IllegalStateException("stored params are not a JSON object: " + e.getMessage(), e);
        }
    }
}
