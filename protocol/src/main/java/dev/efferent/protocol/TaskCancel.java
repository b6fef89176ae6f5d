package dev.efferent.protocol;

import java.util.Objects;

/**
 * {@code task:cancel}, brain to worker: stop a task; the worker answers with a {@code cancelled} result.
 *
 * @param taskId the task to stop
 * @param reason why, e.g. {@code "cancelled by user"} or {@code "timed out after 30s"}
 */
public record TaskCancel(String taskId, String reason) implements Message {
    public static final String TYPE = "task:cancel";

    public TaskCancel {
        Checks.text(taskId, "taskId");
        Objects.requireNonNull(reason, "reason");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
