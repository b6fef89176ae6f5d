package dev.efferent.brain;

import org.junit.jupiter.api.Test;

import java.text.MessageFormat;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RefusalLogTest {

    /** A logger that keeps its lines. */
    static final class Lines implements System.Logger {
        final List<String> lines = new ArrayList<>();

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            lines.add(msg);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            lines.add(MessageFormat.format(format, params));
        }

        @Override
        public void log(Level level, Supplier<String> supplier) {
            lines.add(supplier.get());
        }
    }

    /** A clock the test moves. */
    static final class Moving extends Clock {
        Instant now = Instant.parse("2026-11-22T10:00:00Z");

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

    @Test
    void aFloodOfRefusalsMakesOneLineAnIntervalAndCountsTheRest() {
        Lines log = new Lines();
        Moving clock = new Moving();
        RefusalLog refusals = new RefusalLog(log, Duration.ofSeconds(10), clock);
        for (int i = 0; i < 1000; i++) {
            refusals.warn("Refused {0}", i);
        }
        clock.now = clock.now.plusSeconds(11);
        refusals.warn("Refused {0}", "later");
        assertEquals(List.of("Refused 0", "Refused later (and 999 refusals not logged since the last one)"), log.lines);
    }
}
