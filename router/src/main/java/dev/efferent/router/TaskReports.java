package dev.efferent.router;

import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskAccepted;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskNotFoundException;
import dev.efferent.queue.TaskQueue;
import dev.efferent.router.Inflight.Event;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * What the router does with a worker's reports on its tasks (accepted, rejected, progress, result) and with the
 * tasks of a worker that is lost. Writes go through the {@link TaskWriter}. Runs on the router's thread only.
 */
final class TaskReports {
    private static final System.Logger LOG = System.getLogger(TaskReports.class.getName());
    static final String DISCONNECTED = "Worker disconnected";
    /** How often a task's progress is written to the queue: what other brains show is at most this old. */
    static final long STORE_PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TaskQueue queue;
    private final Clock clock;
    private final RouterState state;
    private final Dispatch dispatch;
    private final TaskWriter writer;
    private final Consumer<Runnable> post;
    /** Workers with slots freed by stored results, claimed for together (refillSoon). */
    private final Set<WorkerSession> toRefill = new LinkedHashSet<>();
    private boolean refillPosted;

    TaskReports(RouterSettings settings, TaskQueue queue, Clock clock, RouterState state,
                BiFunction<Runnable, Duration, Future<?>> scheduler, Dispatch dispatch, Consumer<Runnable> post) {
        this.queue = queue;
        this.clock = clock;
        this.state = state;
        this.dispatch = dispatch;
        this.post = post;
        this.writer = TaskWriter.of(queue, settings.lease(), post, scheduler, this::stored);
    }

    /** Stops storing results in batches; those not stored yet are not acknowledged, and come again. */
    void close() {
        writer.close();
    }

    /** Stores the acceptances still waiting; for the router's close, once its thread has stopped. */
    void flushStarts() {
        writer.flushStarts();
    }

    void progress(WorkerSession s, TaskProgress p) {
        Inflight f = state.inflight.get(p.taskId());
        Progress progress = new Progress(p.percent(), p.message(), clock.instant());
        if (f == null && holdsLease(s, p.taskId())) {
            // Dispatched before this brain restarted: no listener here, but the task keeps its progress.
            LOG.log(Level.DEBUG, "Progress of task {0} from {1}, not dispatched by this brain", p.taskId(), s.name);
            store(s, p.taskId(), progress);
        } else if (f == null || f.session != s) {
            notDispatchedHere(s, "task:progress", p.taskId());
        } else if (!f.stopping()) {
            // Progress is kept for a running task only: its start, if still waiting, goes first.
            writer.startNow(p.taskId());
            state.progress.put(p.taskId(), progress);
            store(s, p.taskId(), progress);
            state.listeners.forEach(l -> l.progress(f.task, p.percent(), p.message()));
        }
    }

    void accepted(WorkerSession s, TaskAccepted a) {
        Inflight f = state.inflight.get(a.taskId());
        if (f == null || f.session != s) {
            s.link.send(new ErrorMessage(ErrorCode.UNKNOWN_TASK, "task:accepted: task " + a.taskId()
                    + " was not dispatched to this worker"));
            return;
        }
        if (f.phase() != Inflight.Phase.SENT) {
            return;
        }
        if (writer.start(f)) {
            // Counted as accepted from now on (a worker lost now fails the attempt rather than giving it back).
            f.on(Event.ACCEPTED);
            f.leaseRenewedAt = clock.instant();
        }
    }

    void rejected(WorkerSession s, TaskRejected r) {
        Inflight f = state.inflight.get(r.taskId());
        if (f == null && holdsLease(s, r.taskId())) {
            LOG.log(Level.DEBUG, "Rejection of task {0} from {1}, not dispatched by this brain: its lease runs out and "
                    + "it is claimed again", r.taskId(), s.name);
            return;
        }
        if (f == null || f.session != s) {
            notDispatchedHere(s, "task:rejected", r.taskId());
            return;
        }
        state.forget(f);
        writer.dropStart(r.taskId());
        if (f.stopping()) {
            return;
        }
        LOG.log(Level.INFO, "Worker {0} rejected task {1} ({2}): {3} {4}", s.name, r.taskId(), f.task.tool(),
                r.reason().wire(), r.message());
        try {
            switch (r.reason()) {
                case BUSY -> {
                    s.full = true;
                    queue.release(r.taskId(), s.id);
                }
                case UNKNOWN_TOOL -> {
                    LOG.log(Level.WARNING, "Worker {0} refused {1} as an unknown tool, though it offered it: no more "
                            + "{1} calls go to it on this connection; its worker:tools says what it has now", s.name,
                            f.task.tool());
                    s.tools.remove(f.task.tool());
                    state.toolsChanged();
                    s.refusedTools.add(f.task.tool());
                    queue.release(r.taskId(), s.id);
                }
                case SHUTTING_DOWN -> {
                    // Given back, accepted or not: it runs on another worker, or here after the restart.
                    s.draining = true;
                    queue.release(r.taskId(), s.id);
                }
                case BAD_PARAMS -> state.finished(queue.fail(r.taskId(), r.message().isBlank()
                        ? "invalid params for " + f.task.tool() : r.message(), false));
            }
        } catch (QueueException e) {
            LOG.log(RouterState.level(e), "Rejected task {0} could not be put back: {1}", r.taskId(), e.getMessage());
        }
        dispatch.pumpAll();
    }

    void result(WorkerSession s, TaskResult r) {
        Inflight f = state.inflight.get(r.taskId());
        boolean itsOwn;
        try {
            itsOwn = fromItsWorker(s, r, f);
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not check the result of task {0} from {1}: {2}; the worker will send it "
                    + "again", r.taskId(), s.name, e.getMessage());
            return;
        }
        if (!itsOwn) {
            notDispatchedHere(s, "task:result", r.taskId());
            return;
        }
        if (f != null && f.storing()) {
            // Sent again before the first was stored: that one's acknowledgement answers both.
            return;
        }
        if (f != null && writer.leaveOutStart(f) && f.phase() == Inflight.Phase.RUNNING) {
            // Its start, waiting for this result, is left out: the result takes the task from claimed to its end
            // (decision 34). Only such tasks are left claimed: see StartBatcher.GRACE.
            f.on(Event.RESULT_BEFORE_START);
        }
        if (f != null && !f.stopping() && r.status() == ResultStatus.COMPLETED
                && writer.completeLater(new ResultBatcher.Pending(s, r, f))) {
            // Stored with others off this thread; acknowledged when stored (stored(), below).
            f.on(Event.STORING);
            return;
        }
        if (f == null || !f.stopping()) {
            try {
                store(s, r);
            } catch (QueueException e) {
                // Not acknowledged, still in flight (its lease kept renewed): the worker offers it again.
                notStored(s, r, e);
                startAfterAll(f);
                return;
            }
        }
        acknowledge(s, r, f);
    }

    /**
     * A result not stored, whose task's start was left out for it: the task is started after all, so that while its
     * worker offers the result again it shows as what it is, accepted and running there, not as waiting for a worker.
     */
    private void startAfterAll(Inflight f) {
        if (f != null && f.phase() == Inflight.Phase.UNSTARTED && f.session.online) {
            f.on(Event.STARTED_AFTER_ALL);
            writer.start(f);
        }
    }

    private static void notStored(WorkerSession s, TaskResult r, QueueException e) {
        LOG.log(Level.WARNING, "Could not store the result of task {0} from {1}: {2}; the worker will send it again",
                r.taskId(), s.name, e.getMessage());
    }

    private void acknowledge(WorkerSession s, TaskResult r, Inflight f) {
        acknowledgeOnly(s, r, f);
        if (s.online) {
            dispatch.refill(s);
        }
    }

    /** {@link #acknowledge} without the claim for the freed slot, which the caller makes (once for many). */
    private void acknowledgeOnly(WorkerSession s, TaskResult r, Inflight f) {
        if (f != null) {
            state.forget(f);
        }
        s.link.send(new TaskResultAck(r.taskId()));
        // A result frees a slot: a worker that said it was busy can take work again now, not at its next heartbeat.
        s.full = false;
    }

    /** A batch of results as the queue stored it: each is acknowledged, or explained as store() would. */
    private void stored(ResultBatcher.Stored stored) {
        for (ResultBatcher.Pending p : stored.batch()) {
            WorkerSession s = p.session();
            TaskResult r = p.result();
            if (p.inflight().storing()) {
                p.inflight().on(Event.BATCH_RETURNED);
            }
            if (stored.failure().isPresent()) {
                notStored(s, r, stored.failure().get());
                if (!s.online) {
                    // lose() left it to this batch: settle it as lose() would have.
                    settleLost(p.inflight());
                } else {
                    startAfterAll(p.inflight());
                }
                continue;
            }
            Task task = stored.completed().get(r.taskId());
            if (task != null) {
                LOG.log(Level.DEBUG, "Task {0} ({1}) completed on {2} in {3} ms", task.id(), task.tool(), s.name,
                        r.durationMs());
                state.finished(task);
            } else {
                // Not completed by the batch (timed out, cancelled or lost meanwhile): the single path says why.
                try {
                    store(s, r);
                } catch (QueueException e) {
                    notStored(s, r, e);
                    startAfterAll(p.inflight());
                    continue;
                }
            }
            acknowledgeOnly(s, r, p.inflight());
            refillSoon(s);
        }
    }

    /**
     * Claims for the slots results freed once the events already waiting are handled: one claim per worker for
     * every batch stored meanwhile, not one per result (each claim is a commit that holds up the router's thread).
     */
    private void refillSoon(WorkerSession s) {
        toRefill.add(s);
        if (!refillPosted) {
            refillPosted = true;
            post.accept(() -> {
                refillPosted = false;
                List<WorkerSession> sessions = List.copyOf(toRefill);
                toRefill.clear();
                sessions.stream().filter(w -> w.online).forEach(dispatch::refill);
            });
        }
    }

    /**
     * Whether a result may come from {@code s}: a task in flight here only from the connection it was dispatched
     * to; otherwise (dispatched before a brain restart, or by another brain) only from the worker holding its
     * lease. A finished or unknown task is answered with an ack and changes nothing, so a worker re-offering a
     * result whose ack was lost is not refused for ever.
     */
    private boolean fromItsWorker(WorkerSession s, TaskResult r, Inflight f) {
        if (f != null) {
            return f.session == s;
        }
        Optional<Task> task = queue.get(r.taskId());
        return task.isEmpty() || task.get().status().isFinished() || task.get().leaseOwner().equals(Optional.of(s.id));
    }

    /** Writes a task's progress to the queue, at most once a second per task, so that every brain shows it. */
    private void store(WorkerSession s, String taskId, Progress progress) {
        long now = System.nanoTime();
        Long last = state.progressStored.get(taskId);
        if (last != null && now - last < STORE_PROGRESS_NANOS) {
            return;
        }
        state.progressStored.put(taskId, now);
        try {
            queue.progress(taskId, s.id, progress);
        } catch (QueueException e) {
            LOG.log(RouterState.level(e), "Could not keep the progress of task {0}: {1}", taskId, e.getMessage());
        }
    }

    private boolean holdsLease(WorkerSession s, String taskId) {
        try {
            return queue.get(taskId).flatMap(Task::leaseOwner).filter(s.id::equals).isPresent();
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not look up task {0} for worker {1}: {2}", taskId, s.name, e.getMessage());
            return false;
        }
    }

    private void notDispatchedHere(WorkerSession s, String what, String taskId) {
        LOG.log(Level.WARNING, "Refused {0} from worker {1} ({2}) for task {3}: it was not dispatched to that "
                + "connection", what, s.name, s.link.describe(), taskId);
        s.link.send(new ErrorMessage(ErrorCode.UNKNOWN_TASK, what + ": task " + taskId
                + " was not dispatched to this worker"));
    }

    private void store(WorkerSession s, TaskResult r) {
        try {
            Task task = switch (r.status()) {
                case COMPLETED -> queue.complete(r.taskId(), r.result().orElseThrow().toString());
                case FAILED -> queue.fail(r.taskId(), r.error().orElseThrow(), false);
                case CANCELLED -> queue.cancel(r.taskId(), r.error().orElseThrow());
            };
            LOG.log(Level.DEBUG, "Task {0} ({1}) {2} on {3} in {4} ms", task.id(), task.tool(), r.status().wire(),
                    s.name, r.durationMs());
            state.finished(task);
        } catch (TaskNotFoundException e) {
            LOG.log(Level.INFO, "Worker {0} sent a {1} result for unknown task {2} (the brain may have restarted "
                    + "since it was dispatched); acknowledged and dropped: {3}", s.name, r.status().wire(), r.taskId(),
                    r.result().map(Object::toString).or(r::error).orElse(""));
        } catch (IllegalTransitionException e) {
            Optional<Task> now = queue.get(r.taskId());
            now.filter(t -> t.status().isFinished()).ifPresent(state::completeWaiters);
            if (now.isPresent() && now.get().status().name().equals(r.status().name())
                    && now.get().error().equals(r.error())) {
                LOG.log(Level.DEBUG, "Ignored a repeated result from {0}: {1}", s.name, e.getMessage());
            } else {
                // The brain decided first (a timeout, a cancel, a lost lease): its decision stands, but say so.
                LOG.log(Level.INFO, "Worker {0} reported task {1} {2}, but it had already ended as {3}; the late "
                        + "result is dropped", s.name, r.taskId(), r.status().wire(), now.map(t -> t.status().name()
                        .toLowerCase(Locale.ROOT) + t.error().map(x -> " (" + x + ")").orElse(""))
                        .orElse("unknown"));
            }
        }
    }

    /**
     * A task of a lost worker, without a stored result: a running one fails (or is requeued, when retryable), a
     * claimed one goes back to the queue. Empty if it was cancelled or had already ended.
     */
    Optional<Task> settleLost(Inflight f) {
        state.forget(f);
        // Its start, if still waiting, would find the task claimed again by the same worker after a quick requeue.
        writer.dropStart(f.task.id());
        if (f.stopping()) {
            return Optional.empty();
        }
        try {
            Task t = f.accepted() ? queue.fail(f.task.id(), DISCONNECTED, f.retryable) : queue.release(f.task.id(), f.session.id);
            if (t.status().isFinished()) {
                state.finished(t);
            } else {
                state.workMayBeQueued();
            }
            return Optional.of(t);
        } catch (QueueException e) {
            LOG.log(RouterState.level(e), "Task {0} of lost worker {1} had already ended: {2}", f.task.id(),
                    f.session.name, e.getMessage());
            return Optional.empty();
        }
    }}
