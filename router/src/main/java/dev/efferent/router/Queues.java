package dev.efferent.router;

import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.plugin.PluginRegistry;
import dev.efferent.plugin.Settings;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.spi.TaskQueueProvider;
import io.helidon.config.Config;

import java.time.Clock;
import java.util.Optional;
import java.util.ServiceLoader;

/** Opens the task queue that {@code queue.provider} names (default {@code memory}). */
public final class Queues {
    /** The provider used when {@code queue.provider} is not set. */
    public static final String DEFAULT_PROVIDER = "memory";

    private Queues() {
    }

    /** The queue providers on the module path. */
    public static PluginRegistry.Builder<TaskQueueProvider> providers() {
        return PluginRegistry.<TaskQueueProvider>builder("queue provider", TaskQueueProvider::name)
                .discover(ServiceLoader.load(TaskQueueProvider.class));
    }

    /**
     * Opens the configured queue.
     *
     * @param config    the root configuration; reads {@code queue.provider} and {@code queue.<provider>.*}, with
     *                  {@code db.*} as the fallback for any key the provider's node lacks (so {@code EFFERENT_DB_URL}
     *                  sets the database of whichever provider needs one)
     * @param providers the available providers
     * @param clock     the queue's clock
     */
    public static TaskQueue open(Config config, PluginRegistry<TaskQueueProvider> providers, Clock clock) {
        String name = config.get("queue.provider").asString().orElse(DEFAULT_PROVIDER);
        Config node = config.get("queue").get(name);
        Settings settings = new ConfigSettings(node, Optional.of(config.get("db")));
        return providers.select(name).open(settings, clock);
    }
}
