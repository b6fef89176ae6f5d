package dev.efferent.protocol;

import java.util.Objects;

/**
 * {@code task:progress}, worker to brain: how far a running task has come.
 *
 * @param taskId  the running task
 * @param percent 0 to 100
 * @param message what it is doing, may be empty
 */
public record TaskProgress(String taskId, int percent, String message) implements Message {
    public static final String TYPE = "task:progress";

    public TaskProgress {
        Checks.text(taskId, "taskId");
        Checks.range(percent, 0, 100, "percent");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
