package dev.efferent.scheduler;

import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;

import java.time.Duration;
import java.time.ZoneId;

/**
 * The scheduler's settings, from {@code scheduler.*}.
 *
 * @param zone               the time zone times without one are read in, and cron expressions without one follow
 *                           (default: the system's)
 * @param checkInterval      how often schedules made by another brain over the same database are looked for
 *                           (default 5s); this brain's own wake it on time
 * @param missedAfter        a fire this late fell while no brain was running: its schedule's missed-run policy
 *                           applies (default 1m)
 * @param maxCatchUp         at most this many missed fires run for a schedule whose policy is {@code run-all}
 *                           (default 10)
 * @param maxPerConversation schedules one conversation may have (default 50)
 */
public record SchedulerSettings(ZoneId zone, Duration checkInterval, Duration missedAfter, int maxCatchUp,
                                int maxPerConversation) {

    /** The defaults. */
    public static SchedulerSettings defaults() {
        return from(Settings.empty());
    }

    /** Reads {@code settings} ({@code scheduler.*}). */
    public static SchedulerSettings from(Settings settings) {
        ZoneId zone = settings.get("zone").filter(z -> !z.isBlank()).map(z -> {
            try {
                return Schedules.zone(z);
            } catch (IllegalArgumentException e) {
                throw new SettingsException("setting " + settings.describe("zone") + ": " + e.getMessage());
            }
        }).orElse(ZoneId.systemDefault());
        Duration check = positive(settings, "check-interval", Duration.ofSeconds(5));
        Duration missed = positive(settings, "missed-after", Duration.ofMinutes(1));
        return new SchedulerSettings(zone, check, missed, atLeast(settings, "max-catch-up", 10),
                atLeast(settings, "max-per-conversation", 50));
    }

    private static Duration positive(Settings settings, String key, Duration defaultValue) {
        Duration d = settings.getDuration(key, defaultValue);
        if (d.isZero() || d.isNegative()) {
            throw new SettingsException("setting " + settings.describe(key) + " must be longer than zero, got " + d);
        }
        return d;
    }

    private static int atLeast(Settings settings, String key, int defaultValue) {
        int value = settings.getInt(key, defaultValue);
        if (value < 1) {
            throw new SettingsException("setting " + settings.describe(key) + " must be at least 1, got " + value);
        }
        return value;
    }
}
