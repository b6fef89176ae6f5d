package dev.efferent.router;

/** A request the router cannot serve. {@link #kind()} tells an API how to answer (400, 404, 409). */
public class RouterException extends RuntimeException {
    private final Kind kind;

    public RouterException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** What sort of problem this is. */
    public Kind kind() {
        return kind;
    }

    /** Sorts of problems. */
    public enum Kind {
        /** The request is malformed: unknown tool or worker, bad params, out-of-range values. */
        BAD_REQUEST,
        /** No task with that id. */
        NOT_FOUND,
        /** The task's state does not allow the change, e.g. cancelling a completed task. */
        CONFLICT
    }
}
