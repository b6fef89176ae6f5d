package dev.efferent.router;

import dev.efferent.queue.Task;

import java.time.Instant;
import java.util.concurrent.Future;

/**
 * A task dispatched to a worker and not yet answered, and where it stands ({@link Phase}). Its phase changes only
 * through {@link #on}, which holds every transition; ARCHITECTURE.md draws them. Touched only on the
 * router's thread.
 */
final class Inflight {
    /** Where a dispatched task stands, between {@code task:dispatch} and the result's acknowledgement. */
    enum Phase {
        /** Sent to its worker, which has not accepted it yet: the queue has it claimed. */
        SENT,
        /** Accepted: its start is stored, or on its way (a {@link TaskWriter} may store it with others). */
        RUNNING,
        /** Accepted, and its start left out because its result came first (decision 34): still claimed in the queue. */
        UNSTARTED,
        /** Its result is being stored with a batch: a copy the worker sends meanwhile is not stored again. */
        STORING,
        /** Cancelled or timed out: the task has ended; its worker is still stopping it. */
        STOPPING
    }

    /** What happens to a dispatched task. */
    enum Event {
        /** Its worker accepted it. */
        ACCEPTED,
        /** Its result came while its start waited: the start is left out. */
        RESULT_BEFORE_START,
        /** A start left out is stored after all: the result it waited for was not stored. */
        STARTED_AFTER_ALL,
        /** Its result goes into a batch. */
        STORING,
        /** The batch came back from the queue: the task is where it was (acknowledged next, or offered again). */
        BATCH_RETURNED,
        /** Cancelled, or its deadline passed. */
        STOPPED
    }

    final Task task;
    final WorkerSession session;
    /** A read-only or idempotent tool: its task may run again elsewhere if the worker is lost. */
    final boolean retryable;
    final Instant dispatchedAt;
    Future<?> deadline;
    Instant leaseRenewedAt;
    private Phase phase = Phase.SENT;
    /** The phase a result being stored came from: where a batch not stored leaves the task. */
    private Phase beforeStoring = Phase.SENT;

    Inflight(Task task, WorkerSession session, boolean retryable, Instant dispatchedAt) {
        this.task = task;
        this.session = session;
        this.retryable = retryable;
        this.dispatchedAt = dispatchedAt;
        this.leaseRenewedAt = dispatchedAt;
    }

    Phase phase() {
        return phase;
    }

    /**
     * Moves the task on; every transition is here.
     *
     * @throws IllegalStateException for an event its phase does not allow (a bug in the router, not a worker's
     *                               fault: what workers send is checked before it gets here)
     */
    void on(Event event) {
        Phase next = switch (event) {
            case ACCEPTED -> phase == Phase.SENT ? Phase.RUNNING : null;
            case RESULT_BEFORE_START -> phase == Phase.RUNNING ? Phase.UNSTARTED : null;
            case STARTED_AFTER_ALL -> phase == Phase.UNSTARTED ? Phase.RUNNING : null;
            case STORING -> phase == Phase.SENT || phase == Phase.RUNNING || phase == Phase.UNSTARTED
                    ? Phase.STORING : null;
            case BATCH_RETURNED -> phase == Phase.STORING ? beforeStoring : null;
            // A task being stored may be cancelled meanwhile: the cancel stands, the late result is dropped.
            case STOPPED -> phase == Phase.STOPPING ? null : Phase.STOPPING;
        };
        if (next == null) {
            throw new IllegalStateException("task " + task.id() + ": " + event + " in phase " + phase);
        }
        if (next == Phase.STORING) {
            beforeStoring = phase;
        }
        phase = next;
    }

    /** Accepted by its worker (a lost worker's task then fails or runs again rather than going back unstarted). */
    boolean accepted() {
        return phase == Phase.RUNNING || phase == Phase.UNSTARTED;
    }

    /** Cancelled or timed out: the task has ended here, whatever its worker still sends. */
    boolean stopping() {
        return phase == Phase.STOPPING;
    }

    boolean storing() {
        return phase == Phase.STORING;
    }
}
