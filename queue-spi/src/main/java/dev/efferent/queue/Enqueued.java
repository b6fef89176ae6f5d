package dev.efferent.queue;

import java.util.Objects;

/**
 * What {@link TaskQueue#add} did.
 *
 * @param task    the task: the new one, or the one an earlier call with the same idempotency key created
 * @param created whether this call created it
 */
public record Enqueued(Task task, boolean created) {
    public Enqueued {
        Objects.requireNonNull(task, "task");
    }
}
