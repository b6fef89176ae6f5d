package dev.efferent.scheduler;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A cron expression of five fields, minute hour day-of-month month day-of-week, as crontab(5) reads them: {@code *},
 * numbers, ranges {@code 1-5}, lists {@code 1,15}, steps {@code *}{@code /5} and {@code 10-50/10}, month and day
 * names ({@code jan}, {@code mon}); Sunday is 0 or 7. When both day fields are restricted, a day matching either
 * one matches, as in cron.
 */
public final class Cron {
    private static final List<String> MONTHS = List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug",
            "sep", "oct", "nov", "dec");
    private static final List<String> DAYS = List.of("sun", "mon", "tue", "wed", "thu", "fri", "sat");
    /** Far enough to find any date a valid expression names (29 February recurs within 8 years). */
    private static final int YEARS_AHEAD = 9;

    private final String text;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet days;
    private final BitSet months;
    private final BitSet weekdays;
    private final boolean anyDay;
    private final boolean anyWeekday;

    private Cron(String text, BitSet minutes, BitSet hours, BitSet days, BitSet months, BitSet weekdays,
                 boolean anyDay, boolean anyWeekday) {
        this.text = text;
        this.minutes = minutes;
        this.hours = hours;
        this.days = days;
        this.months = months;
        this.weekdays = weekdays;
        this.anyDay = anyDay;
        this.anyWeekday = anyWeekday;
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the field that is wrong and why
     */
    public static Cron parse(String text) {
        String[] fields = text.strip().split("\\s+");
        if (fields.length != 5) {
            throw new IllegalArgumentException("a cron expression has five fields (minute hour day-of-month month "
                    + "day-of-week, e.g. '0 9 * * mon-fri'), got " + (text.isBlank() ? "none" : fields.length
                    + " in '" + text.strip() + "'"));
        }
        BitSet weekdays = field(fields[4], "day-of-week", 0, 7, DAYS);
        if (weekdays.get(7)) {
            weekdays.set(0);
            weekdays.clear(7);
        }
        return new Cron(String.join(" ", fields), field(fields[0], "minute", 0, 59, List.of()),
                field(fields[1], "hour", 0, 23, List.of()), field(fields[2], "day-of-month", 1, 31, List.of()),
                field(fields[3], "month", 1, 12, MONTHS), weekdays, fields[2].startsWith("*"),
                fields[4].startsWith("*"));
    }

    private static BitSet field(String field, String name, int min, int max, List<String> names) {
        BitSet set = new BitSet(max + 1);
        for (String part : field.toLowerCase(Locale.ROOT).split(",", -1)) {
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                range = part.substring(0, slash);
                step = number(part.substring(slash + 1), name, 1, max, List.of(), field);
            }
            int from;
            int to;
            if (range.equals("*")) {
                from = min;
                to = max;
            } else if (range.contains("-")) {
                String[] ends = range.split("-", 2);
                from = number(ends[0], name, min, max, names, field);
                to = number(ends[1], name, min, max, names, field);
                if (to < from) {
                    throw new IllegalArgumentException("cron " + name + " '" + field + "': the range " + range
                            + " runs backwards");
                }
            } else {
                from = number(range, name, min, max, names, field);
                // "5/15" is "from 5, every 15", as in cron.
                to = slash >= 0 ? max : from;
            }
            for (int i = from; i <= to; i += step) {
                set.set(i);
            }
        }
        return set;
    }

    private static int number(String value, String name, int min, int max, List<String> names, String field) {
        int named = names.indexOf(value);
        if (named >= 0) {
            return names == MONTHS ? named + 1 : named;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // Said below, with the field it is in.
        }
        throw new IllegalArgumentException("cron " + name + " '" + field + "': '" + value + "' is not "
                + (names.isEmpty() ? "" : "a name (" + String.join(", ", names) + ") or ") + "a number from " + min
                + " to " + max);
    }

    /**
     * The first time after {@code after} (strictly) that this expression names, read in {@code zone}. Local times
     * are walked, not instants, so a change of the clocks cannot make the walk go back: a local time the clocks skip
     * is passed (as cron does), and one they repeat fires the first time only.
     */
    public Optional<Instant> next(Instant after, ZoneId zone) {
        LocalDateTime start = after.atZone(zone).toLocalDateTime();
        LocalDateTime t = start.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        LocalDate last = t.toLocalDate().plusYears(YEARS_AHEAD);
        while (t.toLocalDate().isBefore(last)) {
            if (!months.get(t.getMonthValue())) {
                t = t.withDayOfMonth(1).plusMonths(1).truncatedTo(ChronoUnit.DAYS);
            } else if (!dayMatches(t.toLocalDate())) {
                t = t.plusDays(1).truncatedTo(ChronoUnit.DAYS);
            } else if (!hours.get(t.getHour())) {
                t = t.plusHours(1).truncatedTo(ChronoUnit.HOURS);
            } else if (!minutes.get(t.getMinute())) {
                t = t.plusMinutes(1);
            } else {
                ZonedDateTime at = t.atZone(zone);
                // In a gap the zone moves the time on: that local time never happens that day.
                if (at.toLocalDateTime().equals(t) && at.toInstant().isAfter(after)) {
                    return Optional.of(at.toInstant());
                }
                t = t.plusMinutes(1);
            }
        }
        return Optional.empty();
    }

    private boolean dayMatches(LocalDate date) {
        boolean day = days.get(date.getDayOfMonth());
        boolean weekday = weekdays.get(date.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : date.getDayOfWeek().getValue());
        if (anyDay || anyWeekday) {
            return day && weekday;
        }
        return day || weekday;
    }

    @Override
    public String toString() {
        return text;
    }
}
