package dev.efferent.core.config;

import dev.efferent.plugin.SettingsException;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ConfigSettingsTest {

    @Test
    void everyPluginReadsDurationsTheSameWay() {
        Config config = ConfigLoader.load(Map.of("queue.postgres.connect-timeout", "2s",
                "tools.shell.default-timeout", "PT30S"), Map.of(), Map.of());
        assertEquals(Duration.ofSeconds(2), new ConfigSettings(config.get("queue.postgres"))
                .getDuration("connect-timeout", Duration.ZERO));
        assertEquals(Duration.ofSeconds(30), new ConfigSettings(config.get("tools.shell"))
                .getDuration("default-timeout", Duration.ZERO));
    }

    @Test
    void aBadValueNamesTheFullKeyItsVariableAndTheFormsAccepted() {
        Config config = ConfigLoader.load(Map.of(),
                Map.of("EFFERENT_QUEUE_POSTGRES_CONNECT__TIMEOUT", "soon"), Map.of());
        SettingsException e = assertThrows(SettingsException.class, () -> new ConfigSettings(config.get("queue.postgres"))
                .getDuration("connect-timeout", Duration.ZERO));
        assertEquals("setting 'queue.postgres.connect-timeout' (EFFERENT_QUEUE_POSTGRES_CONNECT__TIMEOUT) must be a "
                + "duration such as 500ms, 30s, 5m, 1h, 2d or ISO-8601 PT30S, got 'soon'", e.getMessage());
    }

    @Test
    void aMissingKeyFallsBackToTheSharedNode() {
        Config config = ConfigLoader.load(Map.of("db.url", "jdbc:postgresql://db/x"), Map.of(),
                Map.of());
        assertEquals(Optional.of("jdbc:postgresql://db/x"),
                new ConfigSettings(config.get("queue.postgres"), config.get("db")).get("url"));
    }

    @Test
    void eachKeyFallsBackOnItsOwnSoOneKeyOfTheStoresKeepsTheQueuesOthers() {
        Config config = ConfigLoader.load(Map.of("store.postgres.store-pool-size", "2",
                "queue.postgres.url", "jdbc:postgresql://queue-db/q", "db.user", "efferent"), Map.of(), Map.of());
        ConfigSettings store = new ConfigSettings(config.get("store.postgres"), config.get("queue.postgres"),
                config.get("db"));
        assertEquals(2, store.getInt("store-pool-size", 4));
        assertEquals(Optional.of("jdbc:postgresql://queue-db/q"), store.get("url"), "the queue's, not db.*'s default");
        assertEquals(Optional.of("efferent"), store.get("user"));
        assertEquals(Optional.empty(), store.get("password"));
    }
}
