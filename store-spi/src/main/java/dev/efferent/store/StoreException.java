package dev.efferent.store;

/** A store operation failed: a bad argument, a store that cannot be reached, or a setting. The message says which. */
public class StoreException extends RuntimeException {

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
