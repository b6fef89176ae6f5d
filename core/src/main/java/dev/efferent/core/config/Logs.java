package dev.efferent.core.config;

import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Console logging for the launchers: one line per record, {@code 2026-11-22 10:15:02 INFO  router: message},
 * unless the user configured java.util.logging themselves ({@code -Djava.util.logging.config.file}).
 */
public final class Logs {
    private Logs() {
    }

    /** Sets up console logging at {@code level} ({@code INFO}, {@code FINE}, …) for Efferent's loggers. */
    public static void setUp(String level) {
        if (System.getProperty("java.util.logging.config.file") != null) {
            return;
        }
        Level efferentLevel;
        try {
            efferentLevel = Level.parse(level.strip().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("log.level must be one of SEVERE, WARNING, INFO, FINE, FINER, FINEST, got '"
                    + level + "'");
        }
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        ConsoleHandler handler = new ConsoleHandler();
        handler.setLevel(Level.ALL);
        handler.setFormatter(new Line());
        root.addHandler(handler);
        root.setLevel(Level.WARNING);
        Logger.getLogger("dev.efferent").setLevel(efferentLevel);
        Logger.getLogger("io.helidon").setLevel(Level.WARNING);
    }

    private static final class Line extends Formatter {
        @Override
        public String format(LogRecord r) {
            String logger = r.getLoggerName() == null ? "" : r.getLoggerName();
            String shortName = logger.substring(logger.lastIndexOf('.') + 1);
            String text = String.format("%1$tF %1$tT %2$-7s %3$s: %4$s%n", r.getMillis(), r.getLevel().getName(),
                    shortName, formatMessage(r));
            if (r.getThrown() != null) {
                java.io.StringWriter trace = new java.io.StringWriter();
                r.getThrown().printStackTrace(new java.io.PrintWriter(trace));
                text += trace;
            }
            return text;
        }
    }
}
