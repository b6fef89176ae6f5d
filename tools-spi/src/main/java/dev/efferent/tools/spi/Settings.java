package dev.efferent.tools.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A toolkit's configuration: string values by dotted key, relative to the toolkit's own node.
 * Hosts adapt their configuration system to this view; the defaults here parse the common types.
 */
public interface Settings {

    /** The value of {@code key}, e.g. {@code "max-read-bytes"}, if set. */
    Optional<String> get(String key);

    /** The list at {@code key} (a YAML sequence or a comma-separated value), empty if unset. */
    default List<String> list(String key) {
        return get(key).map(v -> List.of(v.split(","))).orElse(List.of()).stream()
                .map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** The value of {@code key} as a long. */
    default long getLong(String key, long defaultValue) {
        return get(key).map(v -> {
            try {
                return Long.parseLong(v.strip());
            } catch (NumberFormatException e) {
                throw new ToolException("setting '" + key + "' must be a whole number, got '" + v + "'");
            }
        }).orElse(defaultValue);
    }

    /** The value of {@code key} as a boolean ({@code true} or {@code false}). */
    default boolean getBoolean(String key, boolean defaultValue) {
        return get(key).map(v -> switch (v.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ToolException("setting '" + key + "' must be true or false, got '" + v + "'");
        }).orElse(defaultValue);
    }

    /** The value of {@code key} as a duration: ISO-8601 ({@code PT30S}) or a number with ms, s, m or h. */
    default Duration getDuration(String key, Duration defaultValue) {
        return get(key).map(v -> Durations.parse(key, v)).orElse(defaultValue);
    }

    /** Settings with nothing set. */
    static Settings empty() {
        return key -> Optional.empty();
    }
}
