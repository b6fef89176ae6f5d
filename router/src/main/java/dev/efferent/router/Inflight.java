package dev.efferent.router;

import dev.efferent.queue.Task;

import java.time.Instant;
import java.util.concurrent.Future;

/** A task dispatched to a worker and not yet answered. Touched only on the router's thread. */
final class Inflight {
    final Task task;
    final WorkerSession session;
    /** A read-only or idempotent tool: its task may run again elsewhere if the worker is lost. */
    final boolean retryable;
    final Instant dispatchedAt;
    Future<?> deadline;
    Instant leaseRenewedAt;
    boolean accepted;
    /** Cancelled or timed out: the task is finished; the worker is still stopping it. */
    boolean cancelled;
    /** Its result is being stored with a batch (ResultBatcher): a copy of it sent meanwhile is not stored again. */
    boolean storing;
    /** Accepted, and its start left out because its result came first (decision 34): still claimed in the queue. */
    boolean unstarted;

    Inflight(Task task, WorkerSession session, boolean retryable, Instant dispatchedAt) {
        this.task = task;
        this.session = session;
        this.retryable = retryable;
        this.dispatchedAt = dispatchedAt;
        this.leaseRenewedAt = dispatchedAt;
    }
}
