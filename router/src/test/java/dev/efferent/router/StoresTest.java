package dev.efferent.router;

import dev.efferent.core.plugin.PluginException;
import dev.efferent.store.Store;
import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Which store the brain opens: the one named, else the one named like the queue's provider, else memory. */
class StoresTest {
    private static Store open(Map<String, String> settings) {
        return Stores.open(Config.just(ConfigSources.create(settings)), Stores.providers().build(), Clock.systemUTC());
    }

    @Test
    void aMemoryQueueGetsAMemoryStore() {
        try (Store store = open(Map.of())) {
            assertFalse(store.durable());
        }
    }

    @Test
    void aQueueWithNoStoreOfItsNameGetsMemoryAndTheNamedStoreWins() {
        // No store-postgres on this module path: the queue's name finds none, and memory keeps the state.
        try (Store store = open(Map.of("queue.provider", "postgres"))) {
            assertFalse(store.durable());
        }
        try (Store store = open(Map.of("queue.provider", "postgres", "store.provider", "memory"))) {
            assertFalse(store.durable());
        }
    }

    @Test
    void anUnknownStoreIsRefusedWithTheNamesThereAre() {
        PluginException e = assertThrows(PluginException.class, () -> open(Map.of("store.provider", "embedded")));
        assertEquals("no store provider named 'embedded'; available: [memory]", e.getMessage());
    }
}
