package dev.efferent.core.tools;

import java.time.Duration;

/** Durations as people read them in messages: {@code 30s}, {@code 1500ms}, {@code 5m}, {@code 1h 30m}. */
public final class DurationText {
    private DurationText() {
    }

    /** {@code duration} in words, for sentences: {@code 10 minutes}, {@code 1 hour}, {@code 90 seconds}. */
    public static String words(Duration duration) {
        long s = duration.toSeconds();
        if (s >= 3600 && s % 3600 == 0) {
            return plural(s / 3600, "hour");
        }
        if (s >= 60 && s % 60 == 0) {
            return plural(s / 60, "minute");
        }
        if (s >= 1 && duration.toMillisPart() == 0) {
            return plural(s, "second");
        }
        return of(duration);
    }

    private static String plural(long n, String unit) {
        return n + " " + unit + (n == 1 ? "" : "s");
    }

    /** {@code duration} in the shortest exact form. */
    public static String of(Duration duration) {
        long ms = duration.toMillis();
        if (ms % 1000 != 0 || ms == 0) {
            return ms + "ms";
        }
        long s = ms / 1000;
        if (s % 60 != 0) {
            return s + "s";
        }
        long m = s / 60;
        if (m % 60 != 0) {
            return m >= 60 ? (m / 60) + "h " + (m % 60) + "m" : m + "m";
        }
        return (m / 60) + "h";
    }
}
