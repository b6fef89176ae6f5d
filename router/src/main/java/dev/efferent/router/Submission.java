package dev.efferent.router;

import dev.efferent.queue.Task;

/**
 * What became of a submitted request.
 *
 * @param task    the task as it was right after routing (queued, claimed or already running)
 * @param offline no worker that has the tool is online: the task waits in the queue
 * @param message a line for the user, e.g. "Your machine is offline. I've queued this task (k3x9m2qa7bfd)."
 */
public record Submission(Task task, boolean offline, String message) {
}
