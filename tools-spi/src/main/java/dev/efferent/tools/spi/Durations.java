package dev.efferent.tools.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations written as {@code 30s}, {@code 500ms}, {@code 5m}, {@code 1h} or ISO-8601 {@code PT30S}. */
final class Durations {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    private Durations() {
    }

    static Duration parse(String key, String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(v);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        try {
            return Duration.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new ToolException("setting '" + key + "' must be a duration such as 30s, 500ms, 5m or PT30S, got '"
                    + value + "'");
        }
    }
}
