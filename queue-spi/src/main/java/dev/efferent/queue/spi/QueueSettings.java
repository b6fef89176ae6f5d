package dev.efferent.queue.spi;

import dev.efferent.queue.QueueException;

import java.time.Duration;
import java.util.Optional;

/** A queue provider's configuration: string values by dotted key, relative to {@code queue.<name>}. */
public interface QueueSettings {

    /** The value of {@code key}, if set. */
    Optional<String> get(String key);

    /** The value of {@code key} as an int. */
    default int getInt(String key, int defaultValue) {
        return get(key).map(v -> {
            try {
                return Integer.parseInt(v.strip());
            } catch (NumberFormatException e) {
                throw new QueueException("queue setting '" + key + "' must be a whole number, got '" + v + "'");
            }
        }).orElse(defaultValue);
    }

    /** The value of {@code key} as a duration in ISO-8601 ({@code PT30S}) or as whole milliseconds. */
    default Duration getDuration(String key, Duration defaultValue) {
        return get(key).map(v -> {
            try {
                return v.strip().matches("\\d+") ? Duration.ofMillis(Long.parseLong(v.strip())) : Duration.parse(v.strip());
            } catch (RuntimeException e) {
                throw new QueueException("queue setting '" + key + "' must be a duration such as PT30S or 30000 (ms), got '"
                        + v + "'");
            }
        }).orElse(defaultValue);
    }

    /** Settings with nothing set. */
    static QueueSettings empty() {
        return key -> Optional.empty();
    }
}
