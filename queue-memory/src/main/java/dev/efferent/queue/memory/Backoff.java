package dev.efferent.queue.memory;

import dev.efferent.queue.QueueException;

import java.time.Duration;

/** Retry delay: {@code initial} after the first failed attempt, doubling with each further one, up to {@code max}. */
record Backoff(Duration initial, Duration max) {
    Backoff {
        if (initial.isNegative() || max.compareTo(initial) < 0) {
            throw new QueueException("retry-backoff must not be negative and retry-backoff-max not below it, got "
                    + initial + " and " + max);
        }
    }

    Duration after(int attempt) {
        int doublings = Math.min(Math.max(attempt - 1, 0), 30);
        Duration delay = initial.multipliedBy(1L << doublings);
        return delay.compareTo(max) > 0 ? max : delay;
    }
}
