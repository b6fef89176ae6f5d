package dev.efferent.protocol;

import java.util.Objects;

/**
 * {@code task:rejected}, worker to brain: the worker will not run the task; the brain may send it elsewhere.
 *
 * @param taskId  the dispatched task
 * @param reason  why
 * @param message details for the logs, may be empty
 */
public record TaskRejected(String taskId, RejectReason reason, String message) implements Message {
    public static final String TYPE = "task:rejected";

    public TaskRejected {
        Checks.text(taskId, "taskId");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
