package dev.efferent.queue;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a task is in its life: {@code QUEUED → CLAIMED → RUNNING → COMPLETED | FAILED | CANCELLED}.
 * A claimed task has been handed to a worker that has not yet accepted it; a failed attempt with attempts
 * left goes back to {@code QUEUED}. A task that needs a person's yes starts {@code AWAITING_APPROVAL} and becomes
 * {@code QUEUED} when approved, or {@code CANCELLED} when denied.
 */
public enum TaskStatus {
    /** Held until a person allows it; never claimed in this state. */
    AWAITING_APPROVAL,
    /** Waiting for a worker (or for its run-at time). */
    QUEUED,
    /** Handed to a worker under a lease, not yet accepted. */
    CLAIMED,
    /** Accepted by a worker and running under a lease. */
    RUNNING,
    /** Finished with a result. */
    COMPLETED,
    /** Finished without a result, with no attempts left. */
    FAILED,
    /** Stopped by a user before it finished. */
    CANCELLED;

    /** The statuses a task never leaves. */
    public static final Set<TaskStatus> FINISHED = EnumSet.of(COMPLETED, FAILED, CANCELLED);

    /** Whether a task in this status will never change again. */
    public boolean isFinished() {
        return FINISHED.contains(this);
    }
}
