package dev.efferent.router;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.plugin.PluginRegistry;
import dev.efferent.plugin.Settings;
import dev.efferent.store.Codec;
import dev.efferent.store.Store;
import dev.efferent.store.spi.StoreProvider;
import io.helidon.config.Config;
import io.helidon.config.ConfigSources;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Opens the store that {@code store.provider} names; without it, the provider named like the queue's if there is
 * one (a PostgreSQL queue keeps its store in PostgreSQL too, so what outlived a restart before still does), else
 * {@code memory}. Also the JSON codec the store's owners write their values with.
 */
public final class Stores {
    /** The provider used when neither {@code store.provider} nor a store named like the queue's provider is there. */
    public static final String DEFAULT_PROVIDER = "memory";

    private static final System.Logger LOG = System.getLogger(Stores.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Codec<JsonNode> JSON_CODEC = Codec.of(JsonNode::toString, Stores::parse);

    private Stores() {
    }

    /** The store providers on the module path. */
    public static PluginRegistry.Builder<StoreProvider> providers() {
        return PluginRegistry.<StoreProvider>builder("store provider", StoreProvider::name)
                .discover(ServiceLoader.load(StoreProvider.class));
    }

    /**
     * Opens the configured store.
     *
     * @param config    the root configuration; reads {@code store.provider}, and each of the store's settings from
     *                  {@code store.<provider>.*}, else from the queue's {@code queue.<provider>.*} (the same database
     *                  and schema), else from {@code db.*}: key by key, so setting one of the store's own keeps the
     *                  queue's others
     * @param providers the available providers
     * @param clock     the store's clock
     */
    public static Store open(Config config, PluginRegistry<StoreProvider> providers, Clock clock) {
        String queue = config.get("queue.provider").asString().orElse(Queues.DEFAULT_PROVIDER);
        Optional<String> chosen = config.get("store.provider").asString().asOptional();
        if (chosen.isEmpty() && !providers.names().contains(queue)) {
            // A queue of a third party's, with no store of its name: what the brain keeps lasts as long as it runs.
            LOG.log(Level.WARNING, "No store provider is named like the queue''s ({0}); conversations, schedules "
                    + "and parked turns are kept in memory. Set store.provider to one of {1} to keep them",
                    queue, providers.names());
        }
        String name = chosen.orElse(providers.names().contains(queue) ? queue : DEFAULT_PROVIDER);
        Settings settings = new ConfigSettings(config.get("store").get(name), config.get("queue").get(name),
                config.get("db"));
        return providers.select(name).open(settings, clock);
    }

    /** A store in this process's memory, for tests and tools that keep nothing. */
    public static Store inMemory() {
        return open(Config.just(ConfigSources.create(Map.of("store.provider", DEFAULT_PROVIDER))),
                providers().build(), Clock.systemUTC());
    }

    /** Values as JSON text. */
    public static Codec<JsonNode> json() {
        return JSON_CODEC;
    }

    private static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
