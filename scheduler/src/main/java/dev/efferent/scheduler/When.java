package dev.efferent.scheduler;

import dev.efferent.core.tools.DurationText;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;

/** When a schedule fires: once, at a fixed interval, or as a cron expression reads in a time zone. */
public sealed interface When {
    /** The first fire time after {@code after} (strictly); empty when there is none. */
    Optional<Instant> next(Instant after);

    /** In words, e.g. {@code every 1 hour}, with times shown in {@code zone}. */
    String describe(ZoneId zone);

    /** Once, at {@code at}. */
    record Once(Instant at) implements When {
        public Once {
            Objects.requireNonNull(at, "at");
        }

        @Override
        public Optional<Instant> next(Instant after) {
            return at.isAfter(after) ? Optional.of(at) : Optional.empty();
        }

        @Override
        public String describe(ZoneId zone) {
            return "once, at " + Schedules.show(at, zone);
        }
    }

    /** Every {@code period}, counted from {@code start} (which is not itself a fire). */
    record Every(Duration period, Instant start) implements When {
        public Every {
            Objects.requireNonNull(period, "period");
            Objects.requireNonNull(start, "start");
            if (period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException("an interval must be longer than zero, got " + period);
            }
        }

        @Override
        public Optional<Instant> next(Instant after) {
            if (after.isBefore(start)) {
                return Optional.of(start.plus(period));
            }
            long periods = Duration.between(start, after).dividedBy(period) + 1;
            return Optional.of(start.plus(period.multipliedBy(periods)));
        }

        @Override
        public String describe(ZoneId zone) {
            return "every " + DurationText.words(period);
        }
    }

    /** As {@code cron} reads in {@code zone}. */
    record CronIn(Cron cron, ZoneId zone) implements When {
        public CronIn {
            Objects.requireNonNull(cron, "cron");
            Objects.requireNonNull(zone, "zone");
        }

        @Override
        public Optional<Instant> next(Instant after) {
            return cron.next(after, zone);
        }

        @Override
        public String describe(ZoneId shownIn) {
            return "cron '" + cron + "' (" + zone.getId() + ")";
        }
    }
}
