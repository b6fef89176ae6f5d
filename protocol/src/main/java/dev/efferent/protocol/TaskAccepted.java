package dev.efferent.protocol;

/**
 * {@code task:accepted}, worker to brain: the worker has started the task.
 *
 * @param taskId the dispatched task
 */
public record TaskAccepted(String taskId) implements Message {
    public static final String TYPE = "task:accepted";

    public TaskAccepted {
        Checks.text(taskId, "taskId");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
