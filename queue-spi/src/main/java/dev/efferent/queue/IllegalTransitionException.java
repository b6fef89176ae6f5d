package dev.efferent.queue;

import java.util.Locale;

/** A task cannot make the asked-for change from its current status, e.g. complete a cancelled task. */
public class IllegalTransitionException extends QueueException {
    private final String taskId;
    private final TaskStatus current;

    public IllegalTransitionException(String taskId, TaskStatus current, String action) {
        super("cannot " + action + " task " + taskId + ": it is " + current.name().toLowerCase(Locale.ROOT));
        this.taskId = taskId;
        this.current = current;
    }

    /** The task. */
    public String taskId() {
        return taskId;
    }

    /** Its status when the change was refused. */
    public TaskStatus current() {
        return current;
    }
}
