package dev.efferent.brain;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Warns about refused requests without letting anyone flood the log: any web page can make a browser send
 * thousands of them. At most one line per interval; the next one says how many were not shown.
 */
public final class RefusalLog {
    private final Logger log;
    private final Duration interval;
    private final Clock clock;
    private Instant next = Instant.MIN;
    private long suppressed;

    /** A log that writes to {@code log} at most once per {@code interval}. */
    public RefusalLog(Logger log, Duration interval, Clock clock) {
        this.log = log;
        this.interval = interval;
        this.clock = clock;
    }

    /** Logs {@code message} (a {@link java.text.MessageFormat} pattern) at WARNING unless one was logged lately. */
    public void warn(String message, Object... args) {
        long skipped;
        synchronized (this) {
            Instant now = clock.instant();
            if (now.isBefore(next)) {
                suppressed++;
                return;
            }
            next = now.plus(interval);
            skipped = suppressed;
            suppressed = 0;
        }
        if (skipped > 0) {
            log.log(Level.WARNING, message + " (and " + skipped + " refusals not logged since the last one)", args);
        } else {
            log.log(Level.WARNING, message, args);
        }
    }
}
