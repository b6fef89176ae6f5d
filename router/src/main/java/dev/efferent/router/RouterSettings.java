package dev.efferent.router;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.plugin.SettingsException;
import dev.efferent.tools.spi.Placement;
import io.helidon.config.Config;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the router behaves.
 *
 * @param handsEnabled        {@code hands.enabled}: route LOCAL and HYBRID tools to workers; when false (the
 *                            default) every tool runs in the brain's process
 * @param heartbeatInterval   {@code hands.heartbeat-interval}: how often workers heartbeat; silent for twice
 *                            this, a worker is offline (default 15s)
 * @param localConcurrency    {@code hands.local-concurrency}: tasks the brain runs at once in-process (default 8)
 * @param defaultTimeout      {@code tasks.default-timeout}: a task's time limit when it names none (default 5m)
 * @param maxAttempts         {@code tasks.max-attempts}: tries of a read-only or idempotent tool's task when
 *                            workers are lost (default 3); other tools get one try
 * @param lease               {@code tasks.lease}: how long a claim holds without renewal (default 60s)
 * @param pollInterval        {@code tasks.poll-interval}: how often queued work is looked for even without a
 *                            wake-up, e.g. tasks whose retry time has come (default 1s)
 * @param placementOverrides  {@code routing.placement.<tool>}: LOCAL, CLOUD or HYBRID instead of the tool's own
 * @param retention           {@code tasks.retention}: finished tasks are deleted this long after they finish
 *                            (default 7 days)
 * @param forgetAfter         {@code workers.forget-after}: an offline worker is forgotten (no longer listed or
 *                            targetable, its tools no longer known) this long after it was last heard (default 7d)
 * @param linkTimeout         {@code hands.link-timeout}: a worker link from which nothing (no frame, no answer to
 *                            a ping) was heard this long is dead; silent links are pinged at a third of it
 *                            (default 3s)
 */
public record RouterSettings(boolean handsEnabled,
                             Duration heartbeatInterval,
                             int localConcurrency,
                             Duration defaultTimeout,
                             int maxAttempts,
                             Duration lease,
                             Duration pollInterval,
                             Map<String, Placement> placementOverrides,
                             Duration retention,
                             Duration linkTimeout,
                             Duration forgetAfter) {
    public RouterSettings {
        positive(forgetAfter, "workers.forget-after");
        positive(linkTimeout, "hands.link-timeout");
        positive(heartbeatInterval, "hands.heartbeat-interval");
        positive(defaultTimeout, "tasks.default-timeout");
        positive(lease, "tasks.lease");
        positive(pollInterval, "tasks.poll-interval");
        positive(retention, "tasks.retention");
        if (localConcurrency < 1) {
            throw new ConfigException("hands.local-concurrency must be at least 1, got " + localConcurrency);
        }
        if (maxAttempts < 1) {
            throw new ConfigException("tasks.max-attempts must be at least 1, got " + maxAttempts);
        }
        placementOverrides = Map.copyOf(placementOverrides);
    }

    /** The defaults: single-machine mode. */
    public static RouterSettings defaults() {
        return new RouterSettings(false, Duration.ofSeconds(15), 8, Duration.ofMinutes(5), 3, Duration.ofSeconds(60),
                Duration.ofSeconds(1), Map.of(), Duration.ofDays(7), Duration.ofSeconds(3), Duration.ofDays(7));
    }

    /** Settings from the root configuration node. */
    public static RouterSettings from(Config config) {
        RouterSettings d = defaults();
        Map<String, Placement> overrides = new HashMap<>();
        Config placement = config.get("routing.placement");
        placement.asNodeList().orElse(List.of()).forEach(node -> {
            String value = node.asString().orElse("");
            try {
                overrides.put(node.name(), Placement.valueOf(value.strip().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("routing.placement." + node.name() + " must be LOCAL, CLOUD or HYBRID, got '"
                        + value + "'");
            }
        });
        return new RouterSettings(
                config.get("hands.enabled").asBoolean().orElse(d.handsEnabled()),
                duration(config, "hands.heartbeat-interval", d.heartbeatInterval()),
                config.get("hands.local-concurrency").asInt().orElse(d.localConcurrency()),
                duration(config, "tasks.default-timeout", d.defaultTimeout()),
                config.get("tasks.max-attempts").asInt().orElse(d.maxAttempts()),
                duration(config, "tasks.lease", d.lease()),
                duration(config, "tasks.poll-interval", d.pollInterval()),
                overrides,
                duration(config, "tasks.retention", d.retention()),
                duration(config, "hands.link-timeout", d.linkTimeout()),
                duration(config, "workers.forget-after", d.forgetAfter()));
    }

    /** This with hands mode on or off. */
    public RouterSettings withHands(boolean enabled) {
        return new RouterSettings(enabled, heartbeatInterval, localConcurrency, defaultTimeout, maxAttempts, lease,
                pollInterval, placementOverrides, retention, linkTimeout, forgetAfter);
    }

    /** This with another heartbeat interval. */
    public RouterSettings withHeartbeatInterval(Duration interval) {
        return new RouterSettings(handsEnabled, interval, localConcurrency, defaultTimeout, maxAttempts, lease,
                pollInterval, placementOverrides, retention, linkTimeout, forgetAfter);
    }

    /** This with another poll interval. */
    public RouterSettings withPollInterval(Duration interval) {
        return new RouterSettings(handsEnabled, heartbeatInterval, localConcurrency, defaultTimeout, maxAttempts, lease,
                interval, placementOverrides, retention, linkTimeout, forgetAfter);
    }

    /** This with another link timeout. */
    public RouterSettings withLinkTimeout(Duration timeout) {
        return new RouterSettings(handsEnabled, heartbeatInterval, localConcurrency, defaultTimeout, maxAttempts, lease,
                pollInterval, placementOverrides, retention, timeout, forgetAfter);
    }

    /** This with another lease. */
    public RouterSettings withLease(Duration duration) {
        return new RouterSettings(handsEnabled, heartbeatInterval, localConcurrency, defaultTimeout, maxAttempts,
                duration, pollInterval, placementOverrides, retention, linkTimeout, forgetAfter);
    }

    /** This with another time after which offline workers are forgotten. */
    public RouterSettings withForgetAfter(Duration after) {
        return new RouterSettings(handsEnabled, heartbeatInterval, localConcurrency, defaultTimeout, maxAttempts, lease,
                pollInterval, placementOverrides, retention, linkTimeout, after);
    }

    /** The placement of {@code tool}: the configured override, else {@code own}. */
    public Placement placementOf(String tool, Placement own) {
        return placementOverrides.getOrDefault(tool, own);
    }

    /** The duration at {@code key} (30s, 500ms, 5m, PT30S), or {@code defaultValue}. */
    public static Duration duration(Config config, String key, Duration defaultValue) {
        try {
            return new ConfigSettings(config).getDuration(key, defaultValue);
        } catch (SettingsException e) {
            throw new ConfigException(e.getMessage(), e);
        }
    }

    private static void positive(Duration d, String key) {
        if (d.isNegative() || d.isZero()) {
            throw new ConfigException(key + " must be positive, got " + d);
        }
    }
}
