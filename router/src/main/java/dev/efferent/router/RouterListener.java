package dev.efferent.router;

import dev.efferent.queue.Task;

import java.time.Duration;

/**
 * Hears what happens to tasks and workers, e.g. to send checkpoints to a chat. Methods run on the router's
 * thread: they must be quick and must not call back into the router synchronously.
 */
public interface RouterListener {

    /** A task was submitted; {@code offline} when no worker that has its tool is online. */
    default void submitted(Task task, boolean offline) {
    }

    /** A task was handed to a worker after waiting {@code waited} since it was enqueued. */
    default void dispatched(Task task, String workerId, Duration waited) {
    }

    /** A running task reported progress. */
    default void progress(Task task, int percent, String message) {
    }

    /** A task finished: completed, failed or cancelled. */
    default void finished(Task task) {
    }

    /** A worker registered. */
    default void workerOnline(WorkerInfo worker) {
    }

    /** A worker went offline (its socket closed or it stopped heartbeating). */
    default void workerOffline(WorkerInfo worker) {
    }
}
