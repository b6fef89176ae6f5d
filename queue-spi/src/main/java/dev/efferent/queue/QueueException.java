package dev.efferent.queue;

/** A queue operation failed: a bad argument, a broken store, or a setting. The message names what was wrong. */
public class QueueException extends RuntimeException {

    public QueueException(String message) {
        super(message);
    }

    public QueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
