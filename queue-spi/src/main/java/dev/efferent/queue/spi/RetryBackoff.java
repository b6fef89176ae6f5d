package dev.efferent.queue.spi;

import dev.efferent.plugin.Settings;
import dev.efferent.queue.QueueException;

import java.time.Duration;

/**
 * Retry delay for providers: {@code initial} after the first failed attempt, doubling with each further one,
 * up to {@code max}. Read from {@code retry-backoff} (default 1s) and {@code retry-backoff-max} (default 5m).
 *
 * @param initial delay after the first failed attempt
 * @param max     longest delay
 */
public record RetryBackoff(Duration initial, Duration max) {
    public RetryBackoff {
        if (initial.isNegative() || max.compareTo(initial) < 0) {
            throw new QueueException("retry-backoff must not be negative and retry-backoff-max not below it, got "
                    + initial + " and " + max);
        }
    }

    /** The backoff a provider's settings ask for. */
    public static RetryBackoff from(Settings settings) {
        return new RetryBackoff(settings.getDuration("retry-backoff", Duration.ofSeconds(1)),
                settings.getDuration("retry-backoff-max", Duration.ofMinutes(5)));
    }

    /** The delay before the attempt after {@code attempt}. */
    public Duration after(int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 30);
        Duration delay = initial.multipliedBy(1L << doublings);
        return delay.compareTo(max) > 0 ? max : delay;
    }
}
