package dev.efferent.plugin;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A plugin's configuration: string values by dotted key, relative to the plugin's own node (for example
 * {@code max-read-bytes} under {@code tools.fs}). Hosts adapt their configuration system to this view and name
 * the full key and its environment variable in {@link #describe}; the defaults here parse the common types, the
 * same way for every plugin, and refuse a bad value with a {@link SettingsException} that says what was wrong.
 */
public interface Settings {
    /** The value of {@code key}, e.g. {@code "max-read-bytes"}, if set. */
    Optional<String> get(String key);

    /**
     * How {@code key} is named to a user, e.g. {@code 'tools.fs.max-read-bytes' (EFFERENT_TOOLS_FS_MAX__READ__BYTES)}.
     * The default names the key alone.
     */
    default String describe(String key) {
        return "'" + key + "'";
    }

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
                throw new SettingsException("setting " + describe(key) + " must be a whole number, got '" + v + "'");
            }
        }).orElse(defaultValue);
    }

    /** The value of {@code key} as an int. */
    default int getInt(String key, int defaultValue) {
        long value = getLong(key, defaultValue);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new SettingsException("setting " + describe(key) + " must be at most " + Integer.MAX_VALUE + ", got "
                    + value);
        }
        return (int) value;
    }

    /** The value of {@code key} as a boolean ({@code true} or {@code false}). */
    default boolean getBoolean(String key, boolean defaultValue) {
        return get(key).map(v -> switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new SettingsException("setting " + describe(key) + " must be true or false, got '" + v
                    + "'");
        }).orElse(defaultValue);
    }

    /** The value of {@code key} as a duration: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 2d} or ISO-8601. */
    default Duration getDuration(String key, Duration defaultValue) {
        return get(key).map(v -> Durations.parse(v).orElseThrow(() -> new SettingsException("setting "
                + describe(key) + " must be " + Durations.FORMS + ", got '" + v + "'"
                + (v.strip().matches("\\d+") ? " (a bare number has no unit: write " + v.strip() + "ms)" : ""))))
                .orElse(defaultValue);
    }

    /** Parses {@code value} with the settings' duration grammar; empty if it is not a duration. */
    static Optional<Duration> duration(String value) {
        return Durations.parse(value);
    }

    /** Settings with nothing set. */
    static Settings empty() {
        return key -> Optional.empty();
    }

    /** Settings holding {@code values}, e.g. for tests. */
    static Settings of(Map<String, String> values) {
        Map<String, String> copy = Map.copyOf(values);
        return key -> Optional.ofNullable(copy.get(key));
    }
}
