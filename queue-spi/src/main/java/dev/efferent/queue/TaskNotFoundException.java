package dev.efferent.queue;

/** No task has the given id (it never existed, or it finished and was cleaned up). */
public class TaskNotFoundException extends QueueException {
    private final String taskId;

    public TaskNotFoundException(String taskId) {
        super("no task with id '" + taskId + "'");
        this.taskId = taskId;
    }

    /** The id that was not found. */
    public String taskId() {
        return taskId;
    }
}
