package dev.efferent.queue;

/**
 * Changes to a shared queue made elsewhere, delivered on the queue's own thread; handlers must be quick.
 * Delivery is best effort: a lost event delays, never strands, work, because the router also polls.
 */
public interface QueueEvents {

    /** Tasks may have become claimable: enqueued, requeued or released. */
    default void workAvailable() {
    }

    /** A task finished (completed, failed or cancelled). */
    default void taskFinished(String taskId) {
    }

    /** A task was cancelled; whoever runs it should stop it. */
    default void taskCancelled(String taskId) {
    }
}
