package dev.efferent.core.config;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Locale;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Console logging for the launchers: one line per record, {@code 2026-11-22 10:15:02 INFO  router: message},
 * unless the user configured java.util.logging themselves ({@code -Djava.util.logging.config.file}).
 * Many values in log lines come from outside (a worker's name, a task id, a tool's error), so every record is
 * kept to one line: control characters are shown escaped and a parameter longer than {@link #MAX_VALUE_CHARS}
 * is cut, with its length, so nobody can forge a log line or flood the log through a value.
 */
public final class Logs {
    /** The longest parameter value a log line shows whole. */
    public static final int MAX_VALUE_CHARS = 500;

    private Logs() {
    }

    /**
     * {@code value} safe for one log line: control characters (newlines too) as {@code \n}, {@code \u001b},
     * …, and cut after {@code max} characters with the full length named.
     */
    public static String oneLine(String value, int max) {
        StringBuilder out = new StringBuilder(Math.min(value.length(), max) + 16);
        int end = Math.min(value.length(), max);
        for (int i = 0; i < end; i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        if (value.length() > max) {
            out.append("…(").append(value.length()).append(" chars)");
        }
        return out.toString();
    }

    /**
     * Makes logging outlive the start of JVM shutdown (see {@link ShutdownLogManager}). Call it first thing in
     * {@code main}'s class, before any logger is made; it does nothing if the user chose a log manager.
     */
    public static void useShutdownLogManager() {
        if (System.getProperty("java.util.logging.manager") == null) {
            System.setProperty("java.util.logging.manager", ShutdownLogManager.class.getName());
        }
    }

    /** Sets up console logging at {@code level} ({@code INFO}, {@code FINE}, …) for Efferent's loggers. */
    public static void setUp(String level) {
        if (System.getProperty("java.util.logging.config.file") != null) {
            return;
        }
        Level efferentLevel;
        try {
            efferentLevel = Level.parse(level.strip().toUpperCase(Locale.ROOT));
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

    private static String oneLineKeepingTabs(String line) {
        return oneLine(line, Integer.MAX_VALUE).replace("\\t", "\t");
    }

    static final class Line extends Formatter {
        @Override
        public String format(LogRecord r) {
            String logger = r.getLoggerName() == null ? "" : r.getLoggerName();
            String shortName = logger.substring(logger.lastIndexOf('.') + 1);
            Object[] parameters = r.getParameters();
            if (parameters != null) {
                Object[] safe = new Object[parameters.length];
                for (int i = 0; i < parameters.length; i++) {
                    // Numbers keep their MessageFormat formatting; anything else is shown as one cut line.
                    safe[i] = parameters[i] instanceof Number || parameters[i] == null ? parameters[i]
                            : oneLine(String.valueOf(parameters[i]), MAX_VALUE_CHARS);
                }
                r.setParameters(safe);
            }
            String text = String.format("%1$tF %1$tT %2$-7s %3$s: %4$s%n", r.getMillis(), r.getLevel().getName(),
                    shortName, oneLine(formatMessage(r), Integer.MAX_VALUE));
            if (r.getThrown() != null) {
                StringWriter trace = new StringWriter();
                r.getThrown().printStackTrace(new PrintWriter(trace));
                // A stack trace spans lines, and its messages may come from outside: every one of its lines is
                // indented, so none can pass for a record of its own (those start with the date).
                StringBuilder indented = new StringBuilder();
                trace.toString().lines().forEach(line -> indented.append(line.isEmpty()
                        || Character.isWhitespace(line.charAt(0)) ? "" : "\t").append(oneLineKeepingTabs(line))
                        .append(System.lineSeparator()));
                text += indented;
            }
            return text;
        }
    }
}
