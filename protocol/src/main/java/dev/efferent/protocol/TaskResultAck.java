package dev.efferent.protocol;

/**
 * {@code task:result:ack}, brain to worker: the result is stored; the worker may forget it.
 *
 * @param taskId the task whose result was stored
 */
public record TaskResultAck(String taskId) implements Message {
    public static final String TYPE = "task:result:ack";

    public TaskResultAck {
        Checks.text(taskId, "taskId");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
