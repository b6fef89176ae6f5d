package dev.efferent.core.config;

import java.util.logging.LogManager;

/**
 * The JDK's log manager, except that it keeps its handlers while the JVM shuts down. The JDK resets logging in a
 * shutdown hook of its own, which runs alongside ours, so what a worker or brain logs while it stops (tasks it
 * finished or handed back, "stopped") would otherwise be lost. Installed by {@link Logs#useShutdownLogManager()}.
 */
public final class ShutdownLogManager extends LogManager {
    /** Called by {@link LogManager} itself, through the {@code java.util.logging.manager} property. */
    public ShutdownLogManager() {
        super();
    }

    @Override
    public void reset() {
        if (shuttingDown()) {
            // Handlers stay open: the console is flushed after every record, and the JVM closes it at exit.
            return;
        }
        super.reset();
    }

    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }
}
