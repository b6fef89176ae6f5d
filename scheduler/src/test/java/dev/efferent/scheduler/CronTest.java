package dev.efferent.scheduler;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CronTest {
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    private static final ZoneId UTC = ZoneId.of("UTC");

    private static Instant next(String cron, String after, ZoneId zone) {
        return Cron.parse(cron).next(Instant.parse(after), zone).orElseThrow();
    }

    @Test
    void theNextMinuteTheExpressionNamesReadInItsZone() {
        // 09:00 in Paris on a Monday in winter is 08:00 UTC.
        assertEquals(Instant.parse("2026-11-23T08:00:00Z"), next("0 9 * * mon-fri", "2026-11-22T12:00:00Z", PARIS));
        assertEquals(Instant.parse("2026-11-24T08:00:00Z"), next("0 9 * * mon-fri", "2026-11-23T08:00:00Z", PARIS),
                "strictly after: the same minute is not next");
        // Friday evening: the next working day is Monday.
        assertEquals(Instant.parse("2026-11-30T08:00:00Z"), next("0 9 * * 1-5", "2026-11-27T18:00:00Z", PARIS));
        assertEquals(Instant.parse("2026-11-22T12:05:00Z"), next("*/5 * * * *", "2026-11-22T12:03:10Z", UTC));
        assertEquals(Instant.parse("2026-11-22T12:10:00Z"), next("10-50/20 * * * *", "2026-11-22T12:00:00Z", UTC));
        assertEquals(Instant.parse("2027-01-01T00:00:00Z"), next("0 0 1 jan *", "2026-11-22T12:00:00Z", UTC));
        assertEquals(Instant.parse("2026-11-29T00:00:00Z"), next("0 0 * * 7", "2026-11-22T12:00:00Z", UTC),
                "7 is Sunday, as 0 is");
    }

    @Test
    void restrictedDayOfMonthAndWeekdayMatchEitherAsInCron() {
        // The 1st of the month or any Monday: the next is Monday 23 November, not 1 December.
        assertEquals(Instant.parse("2026-11-23T00:00:00Z"), next("0 0 1 * mon", "2026-11-22T12:00:00Z", UTC));
        assertEquals(Instant.parse("2028-02-29T00:00:00Z"), next("0 0 29 2 *", "2026-11-22T12:00:00Z", UTC),
                "a 29 February is found years ahead");
    }

    @Test
    void aTimeTheClocksSkipIsPassedAndOneTheyRepeatFiresOnce() {
        // 02:30 does not exist in Paris on 29 March 2026: the next 02:30 is the day after.
        assertEquals(Instant.parse("2026-03-30T00:30:00Z"), next("30 2 * * *", "2026-03-28T12:00:00Z", PARIS));
        // 02:30 happens twice on 25 October 2026: the first one, then the next day's.
        Instant first = next("30 2 * * *", "2026-10-24T12:00:00Z", PARIS);
        assertEquals(Instant.parse("2026-10-25T00:30:00Z"), first);
        assertTrue(next("30 2 * * *", first.toString(), PARIS).isAfter(Instant.parse("2026-10-26T00:00:00Z")));
    }

    @Test
    void aHalfHourChangeOfTheClocksDoesNotStopTheWalk() {
        // Lord Howe Island goes back half an hour at 02:00 on 5 April 2026: 03:00 still comes, that day.
        ZoneId lordHowe = ZoneId.of("Australia/Lord_Howe");
        Instant next = next("0 3 * * *", "2026-04-04T12:00:00Z", lordHowe);
        assertEquals("2026-04-05T03:00+10:30[Australia/Lord_Howe]", next.atZone(lordHowe).toString());
    }

    @Test
    void aWrongExpressionSaysWhichFieldAndWhy() {
        assertEquals("a cron expression has five fields (minute hour day-of-month month day-of-week, e.g. "
                + "'0 9 * * mon-fri'), got 6 in '* * * * * *'", assertThrows(IllegalArgumentException.class,
                () -> Cron.parse("* * * * * *")).getMessage());
        assertEquals("cron minute '61': '61' is not a number from 0 to 59",
                assertThrows(IllegalArgumentException.class, () -> Cron.parse("61 * * * *")).getMessage());
        assertEquals("cron day-of-week 'funday': 'funday' is not a name (sun, mon, tue, wed, thu, fri, sat) or a "
                + "number from 0 to 7", assertThrows(IllegalArgumentException.class,
                () -> Cron.parse("0 9 * * funday")).getMessage());
        assertEquals("cron hour '17-9': the range 17-9 runs backwards",
                assertThrows(IllegalArgumentException.class, () -> Cron.parse("0 17-9 * * *")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Cron.parse("*/0 * * * *"), "a step of 0");
        assertThrows(IllegalArgumentException.class, () -> Cron.parse(""));
        assertTrue(Cron.parse("0 0 31 2 *").next(Instant.parse("2026-01-01T00:00:00Z"), UTC).isEmpty(),
                "31 February never comes");
    }
}
