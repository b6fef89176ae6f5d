package dev.efferent.brain;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What an assembly opened, closed in the reverse order: each part is pushed as soon as it exists, so a start that
 * fails halfway closes exactly what it had opened. A part that fails to close is logged, and the others still close.
 */
final class Closers {
    private static final System.Logger LOG = System.getLogger(Closers.class.getName());

    private record Part(String name, AutoCloseable closer) {
    }

    private final Deque<Part> stack = new ArrayDeque<>();

    /** Pushes how to close the part called {@code name}: it closes before everything pushed earlier. */
    void push(String name, AutoCloseable closer) {
        stack.push(new Part(name, closer));
    }

    /**
     * Closes everything, after a start that failed with {@code cause}: a part that fails to close is logged and
     * added to {@code cause} as suppressed, which is returned for the caller to throw.
     */
    RuntimeException closeAfter(RuntimeException cause) {
        closeAll(cause);
        return cause;
    }

    /** Closes everything, the last pushed first; a part that fails to close is logged, and the rest still close. */
    void close() {
        closeAll(null);
    }

    private void closeAll(RuntimeException cause) {
        while (!stack.isEmpty()) {
            Part part = stack.pop();
            try {
                part.closer().close();
            } catch (InterruptedException e) {
                // Closing goes on: what is left still holds threads, sockets or connections.
                Thread.currentThread().interrupt();
                failed(part, e, cause);
            } catch (Exception e) {
                failed(part, e, cause);
            }
        }
    }

    private static void failed(Part part, Exception e, RuntimeException cause) {
        LOG.log(Level.WARNING, "The brain's " + part.name() + " did not close cleanly; the rest close all the same", e);
        if (cause != null) {
            cause.addSuppressed(e);
        }
    }
}
