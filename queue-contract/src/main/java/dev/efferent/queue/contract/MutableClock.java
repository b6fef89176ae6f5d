package dev.efferent.queue.contract;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves by hand, so leases, run-at and backoff are tested without sleeping. */
public final class MutableClock extends Clock {
    private volatile Instant now;

    /** A clock that reads {@code start} until moved. */
    public MutableClock(Instant start) {
        this.now = start;
    }

    /** Moves the clock forward. */
    public void advance(Duration duration) {
        now = now.plus(duration);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
