package dev.efferent.plugin;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The one duration grammar: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 2d} or ISO-8601 ({@code PT30S}). */
final class Durations {
    static final String FORMS = "a duration such as 500ms, 30s, 5m, 1h, 2d or ISO-8601 PT30S";
    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    private Durations() {
    }

    /** The duration {@code value} means, or empty if it is not one. */
    static Optional<Duration> parse(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(v);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return Optional.of(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            });
        }
        try {
            return Optional.of(Duration.parse(value.strip().toUpperCase(Locale.ROOT)));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
