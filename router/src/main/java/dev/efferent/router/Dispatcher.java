package dev.efferent.router;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.efferent.core.tools.DurationText;
import dev.efferent.core.tools.ParamsSchema;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.ClaimRequest;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.Enqueued;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.QueueEvents;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import dev.efferent.tools.spi.Placement;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.BiFunction;

/**
 * The routing rules and a task's life after submission: choosing workers, claiming and dispatching, deadlines,
 * cancel, lost workers and heartbeats. Runs on the router's thread only.
 */
final class Dispatcher extends WorkerMessages {
    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());
    private Instant lastCleanup = Instant.EPOCH;
    /**
     * Leases are expired only once this brain has been up for a whole lease. While no brain ran, nobody could
     * renew them: a live worker still running a task gets the time to reconnect (its backoff, 30 s at most) and
     * renew it, instead of the task failing as "lease expired" and its real result being turned away.
     */
    private final Instant expireLeasesFrom;

    Dispatcher(RouterSettings settings, TaskQueue queue, Clock clock, RouterState state,
               BiFunction<Runnable, Duration, Future<?>> scheduler) {
        super(settings, queue, clock, state, scheduler);
        // Without hands the only lease owner is the in-process worker of an earlier brain process: nothing to wait for.
        this.expireLeasesFrom = settings.handsEnabled() ? clock.instant().plus(settings.lease()) : clock.instant();
    }

    Submission submit(TaskRequest request) {
        ToolDescriptor tool = state.knownTools.get(request.tool());
        if (tool == null) {
            throw new RouterException(RouterException.Kind.BAD_REQUEST, "unknown tool '" + request.tool()
                    + "'; known tools: " + state.knownTools.keySet().stream().sorted().toList());
        }
        state.localTools.filter(local -> local.catalog().find(tool.name()).isPresent())
                .flatMap(local -> local.check(tool.name(), request.params()))
                .ifPresent(refusal -> {
                    throw new RouterException(RouterException.Kind.BAD_REQUEST, refusal.message());
                });
        int priority = request.priority().orElse(NewTask.DEFAULT_PRIORITY);
        if (priority < NewTask.MIN_PRIORITY || priority > NewTask.MAX_PRIORITY) {
            throw new RouterException(RouterException.Kind.BAD_REQUEST, "priority must be from 1 to 10, got " + priority);
        }
        Duration timeout = request.timeout().orElse(settings.defaultTimeout());
        if (timeout.isNegative() || timeout.isZero()) {
            throw new RouterException(RouterException.Kind.BAD_REQUEST, "timeoutMs must be positive, got "
                    + timeout.toMillis());
        }
        Optional<String> target = request.worker().map(w -> state.findWorker(w).orElseThrow(() ->
                new RouterException(RouterException.Kind.BAD_REQUEST, "no worker named '" + w + "'; known workers: "
                        + state.workerNames())));
        String params;
        try {
            params = Router.JSON.writeValueAsString(request.params());
        } catch (JsonProcessingException e) {
            throw new RouterException(RouterException.Kind.BAD_REQUEST, "params cannot be serialised: " + e.getMessage());
        }
        NewTask.Builder spec = NewTask.builder(tool.name(), params).priority(priority).timeout(timeout)
                .maxAttempts(tool.readOnly() || tool.idempotent() ? settings.maxAttempts() : 1);
        target.ifPresent(spec::targetWorker);
        request.requester().ifPresent(spec::requester);
        request.idempotencyKey().ifPresent(spec::idempotencyKey);
        Enqueued enqueued = queue.add(spec.build());
        Task task = enqueued.task();
        if (!enqueued.created()) {
            return new Submission(task, false, "This request was already submitted as task " + task.id() + ".");
        }
        List<WorkerSession> candidates = candidates(task, request.requester());
        for (WorkerSession s : candidates) {
            if (s.freeSlots() > 0) {
                pump(s);
                if (state.inflight.containsKey(task.id())) {
                    break;
                }
            }
        }
        Inflight dispatched = state.inflight.get(task.id());
        boolean offline = candidates.isEmpty();
        String message;
        if (dispatched != null) {
            task = dispatched.task;
            message = "Running " + tool.name() + " on " + dispatched.session.name + " (" + task.id() + ").";
        } else if (offline) {
            message = "Your machine is offline. I've queued this task (" + task.id() + ").";
        } else {
            message = "Every worker that has " + tool.name() + " is busy. I've queued this task (" + task.id() + ").";
        }
        Task submitted = task;
        state.listeners.forEach(l -> l.submitted(submitted, offline));
        return new Submission(task, offline, message);
    }

    /** Online workers that could run {@code task}: its target only, else the requester's active worker, then the least loaded. */
    private List<WorkerSession> candidates(Task task, Optional<String> requester) {
        Optional<String> active = requester.flatMap(state::activeWorker);
        List<WorkerSession> list = new ArrayList<>(state.sessions.values().stream()
                .filter(s -> s.tools.containsKey(task.tool()))
                .filter(s -> task.targetWorker().map(s.id::equals).orElse(true))
                .toList());
        list.sort(Comparator.comparing((WorkerSession s) -> !active.map(s.id::equals).orElse(false))
                .thenComparingDouble(WorkerSession::load));
        return list;
    }

    Task cancel(String taskId, String reason) {
        Task task = queue.get(taskId).orElseThrow(() -> new RouterException(RouterException.Kind.NOT_FOUND,
                "no task with id '" + taskId + "'"));
        if (task.status().isFinished()) {
            throw new RouterException(RouterException.Kind.CONFLICT, "task " + taskId + " is already "
                    + task.status().name().toLowerCase(java.util.Locale.ROOT) + "; only queued or running tasks can be cancelled");
        }
        Task cancelled;
        try {
            cancelled = queue.cancel(taskId, reason);
        } catch (IllegalTransitionException e) {
            throw new RouterException(RouterException.Kind.CONFLICT, e.getMessage());
        }
        stopOnWorker(taskId, reason);
        LOG.log(Level.INFO, "Task {0} ({1}) cancelled: {2}", taskId, task.tool(), reason);
        finished(cancelled);
        return cancelled;
    }

    CompletableFuture<Task> completion(String taskId) {
        Optional<Task> task = queue.get(taskId);
        if (task.isEmpty()) {
            return CompletableFuture.failedFuture(new RouterException(RouterException.Kind.NOT_FOUND,
                    "no task with id '" + taskId + "'"));
        }
        if (task.get().status().isFinished()) {
            return CompletableFuture.completedFuture(task.get());
        }
        CompletableFuture<Task> future = new CompletableFuture<>();
        state.waiters.computeIfAbsent(taskId, k -> new ArrayList<>()).add(future);
        return future;
    }

    /**
     * The tools {@code s} may claim tasks of: all of its own, except that the brain leaves a HYBRID tool to the
     * workers while one that offers it is online (a worker preferred; the brain when none is there).
     */
    private Set<String> claimable(WorkerSession s) {
        if (!s.local || !settings.handsEnabled()) {
            return s.toolNames();
        }
        Set<String> tools = new java.util.HashSet<>(s.toolNames());
        tools.removeIf(name -> Placement.HYBRID.name().equals(s.tools.get(name).placement())
                && state.sessions.values().stream().anyMatch(w -> !w.local && w.online && w.tools.containsKey(name)));
        return tools;
    }

    /** Claims work for the worker's free slots and dispatches it. */
    @Override
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
        try {
            claimed = queue.claim(new ClaimRequest(s.id, tools, free, settings.lease()));
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not claim tasks for worker " + s.name, e);
            return;
        }
        claimed.forEach(t -> dispatch(s, t));
    }

    private void dispatch(WorkerSession s, Task task) {
        Instant now = clock.instant();
        ToolDescriptor tool = s.tools.get(task.tool());
        Inflight f = new Inflight(task, s, tool != null && (tool.readOnly() || tool.idempotent()), now);
        TaskDispatch message;
        try {
            message = new TaskDispatch(task.id(), task.tool(), Router.parseParams(task.params()), task.priority(),
                    task.timeout().toMillis(), task.attempt(), task.requester().orElse(""));
        } catch (IllegalStateException e) {
            LOG.log(Level.ERROR, "Task " + task.id() + " cannot be dispatched", e);
            finished(queue.fail(task.id(), e.getMessage(), false));
            return;
        }
        // Checked against the schema of the worker that will run it: its copy of the tool may differ from others'.
        ParamsSchema schema = s.schemas.get(task.tool());
        List<String> problems = schema == null ? List.of() : schema.validate(message.params());
        if (!problems.isEmpty()) {
            String why = "invalid params for " + task.tool() + " on " + s.name + ": " + String.join("; ", problems);
            LOG.log(Level.INFO, "Task {0} not sent: {1}", task.id(), why);
            finished(queue.fail(task.id(), why, false));
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
        if (state.inflight.get(taskId) != f || f.cancelled) {
            return;
        }
        String reason = "timed out after " + DurationText.of(f.task.timeout());
        f.cancelled = true;
        f.session.link.send(new TaskCancel(taskId, reason));
        try {
            Task failed = queue.fail(taskId, reason, false);
            LOG.log(Level.WARNING, "Task {0} ({1}) on {2} {3}", taskId, f.task.tool(), f.session.name, reason);
            finished(failed);
        } catch (QueueException e) {
            LOG.log(Level.DEBUG, "Task {0} timed out but had already ended: {1}", taskId, e.getMessage());
        }
    }

    /** What this router does when another process changes the shared queue. */
    QueueEvents queueEvents(java.util.function.Consumer<Runnable> post) {
        java.util.concurrent.atomic.AtomicBoolean pumpPending = new java.util.concurrent.atomic.AtomicBoolean();
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
    private void finishedElsewhere(String taskId) {
        if (!state.waiters.containsKey(taskId)) {
            return;
        }
        queue.get(taskId).filter(t -> t.status().isFinished()).ifPresent(this::finished);
    }

    /** Tells the worker running {@code taskId}, if any, to stop; it stays in flight until its result arrives. */
    private void stopOnWorker(String taskId, String reason) {
        Inflight f = state.inflight.get(taskId);
        if (f != null && !f.cancelled) {
            f.cancelled = true;
            if (f.deadline != null) {
                f.deadline.cancel(false);
            }
            f.session.link.send(new TaskCancel(taskId, reason));
        }
    }

    /** Every few heartbeat intervals' fraction: declares silent workers offline. */
    void checkHeartbeats() {
        Instant now = clock.instant();
        Duration limit = settings.heartbeatInterval().multipliedBy(2);
        for (WorkerSession s : List.copyOf(state.sessions.values())) {
            if (!s.local && Duration.between(s.lastHeartbeat(), now).compareTo(limit) > 0) {
                String why = "no heartbeat for " + DurationText.of(Duration.ofMillis(
                        Duration.between(s.lastHeartbeat(), now).toMillis()));
                s.link.close(4001, "heartbeat timeout");
                lose(s, why);
            }
        }
    }

    /**
     * A third of the link timeout: pings links that have been quiet, and declares dead those from which nothing
     * (no frame, no answer to a ping) came for the link timeout. A worker killed, or its network gone without a
     * close, is noticed in seconds instead of at the next heartbeat.
     */
    void probeLinks() {
        Instant now = clock.instant();
        Duration timeout = settings.linkTimeout();
        for (WorkerSession s : List.copyOf(state.sessions.values())) {
            Connection c = s.connection();
            Duration silent = Duration.between(c.lastHeard, now);
            if (s.local) {
                continue;
            }
            if (silent.compareTo(timeout) > 0) {
                s.link.close(4002, "no answer for " + DurationText.of(timeout));
                lose(s, "nothing heard for " + DurationText.of(Duration.ofMillis(silent.toMillis()))
                        + ", not even an answer to a ping");
            } else if (silent.compareTo(timeout.dividedBy(3)) >= 0 && !c.probing) {
                c.probing = true;
                s.link.ping().whenComplete((answered, failure) -> {
                    c.probing = false;
                    if (failure == null) {
                        c.heard();
                    } else {
                        scheduler.apply(() -> {
                            if (s.online) {
                                s.link.close(4002, "link failed");
                                lose(s, "the link failed: " + failure.getMessage());
                            }
                        }, Duration.ZERO);
                    }
                });
            }
        }
    }

    /** Every poll interval: renews leases of dispatched tasks, requeues expired ones, and looks for work. */
    void maintain() {
        Instant now = clock.instant();
        Duration half = settings.lease().dividedBy(2);
        for (Inflight f : state.inflight.values()) {
            if (!f.cancelled && Duration.between(f.leaseRenewedAt, now).compareTo(half) >= 0) {
                try {
                    queue.renewLease(f.task.id(), f.session.id, settings.lease());
                    f.leaseRenewedAt = now;
                } catch (QueueException e) {
                    LOG.log(Level.DEBUG, "Lease of task {0} not renewed: {1}", f.task.id(), e.getMessage());
                }
            }
        }
        // Tasks finished by another brain, in case its notice was lost.
        for (String id : List.copyOf(state.waiters.keySet())) {
            if (!state.inflight.containsKey(id)) {
                try {
                    finishedElsewhere(id);
                } catch (QueueException e) {
                    LOG.log(Level.DEBUG, "Could not check task {0}: {1}", id, e.getMessage());
                }
            }
        }
        if (!now.isBefore(expireLeasesFrom)) {
            try {
                for (Task t : queue.requeueExpiredLeases()) {
                    if (t.status().isFinished()) {
                        finished(t);
                    }
                }
            } catch (QueueException e) {
                LOG.log(Level.WARNING, "Could not requeue expired leases", e);
            }
        }
        cleanUp(now);
        forgetOfflineWorkers(now);
        pumpAll();
    }

    /** Once a minute: deletes tasks finished longer ago than the retention. */
    /** Why a queued task is not running yet, in words a user understands; empty for a task that is not queued. */
    Optional<String> waitingReason(String taskId) {
        Optional<Task> found = queue.get(taskId);
        if (found.isEmpty() || found.get().status() != TaskStatus.QUEUED) {
            return Optional.empty();
        }
        Task task = found.get();
        if (task.runAt().isAfter(clock.instant())) {
            return Optional.of("tried again at " + task.runAt() + " after: " + task.error().orElse("a failed attempt"));
        }
        if (task.targetWorker().isPresent()) {
            String id = task.targetWorker().get();
            WorkerSession target = state.sessions.get(id);
            String name = state.workerName(id);
            if (target == null || !target.online) {
                return Optional.of("waiting for worker " + name + " to come online");
            }
            return Optional.of(target.tools.containsKey(task.tool()) ? "worker " + name + " is busy"
                    : "worker " + name + " does not offer " + task.tool() + " (any more); cancel the task or start "
                    + "a worker that has it");
        }
        boolean anyone = state.sessions.values().stream().anyMatch(s -> s.online && s.tools.containsKey(task.tool()));
        return Optional.of(anyone ? "every worker that has " + task.tool() + " is busy"
                : "waiting for a worker that has " + task.tool() + " to come online");
    }

    private void forgetOfflineWorkers(Instant now) {
        List<String> forgotten = state.forget(now, settings.forgetAfter());
        if (!forgotten.isEmpty()) {
            LOG.log(Level.INFO, "Forgot {0} offline {1} not heard from for {2}: {3}", forgotten.size(),
                    forgotten.size() == 1 ? "worker" : "workers", DurationText.of(settings.forgetAfter()),
                    forgotten.size() > 10 ? forgotten.subList(0, 10) + " …" : forgotten);
        }
    }

    private void cleanUp(Instant now) {
        if (Duration.between(lastCleanup, now).compareTo(Duration.ofMinutes(1)) < 0) {
            return;
        }
        lastCleanup = now;
        try {
            int deleted = queue.deleteFinishedBefore(now.minus(settings.retention()));
            if (deleted > 0) {
                LOG.log(Level.INFO, "Deleted {0} tasks finished more than {1} ago", deleted,
                        DurationText.of(settings.retention()));
            }
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not delete old finished tasks: {0}", e.getMessage());
        }
    }

    @Override
    void pumpAll() {
        state.sessions.values().stream().sorted(Comparator.comparingDouble(WorkerSession::load)).toList()
                .forEach(this::pump);
    }
}
