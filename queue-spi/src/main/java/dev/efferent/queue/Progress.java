package dev.efferent.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * The last progress a running task reported.
 *
 * @param percent 0 to 100
 * @param message what the tool said, e.g. the last line a command printed; may be empty
 * @param at      when it arrived
 */
public record Progress(int percent, String message, Instant at) {
    public Progress {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(at, "at");
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("progress must be 0 to 100 percent, got " + percent);
        }
    }
}
