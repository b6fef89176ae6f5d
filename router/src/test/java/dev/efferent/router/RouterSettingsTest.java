package dev.efferent.router;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.tools.spi.Placement;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RouterSettingsTest {
    @TempDir
    Path dir;

    @Test
    void readsTheFileAndTheEnvironment() throws IOException {
        Path file = Files.writeString(dir.resolve("e.yaml"), """
                hands:
                  enabled: true
                  heartbeat-interval: 5s
                routing:
                  placement:
                    search_files: CLOUD
                    read_file: hybrid
                """);
        Config config = ConfigLoader.load(file, Map.of("EFFERENT_TASKS_DEFAULT__TIMEOUT", "90s"), Map.of());
        RouterSettings s = RouterSettings.from(config);
        assertEquals(true, s.handsEnabled());
        assertEquals(Duration.ofSeconds(5), s.heartbeatInterval());
        assertEquals(Duration.ofSeconds(90), s.defaultTimeout());
        assertEquals(Placement.CLOUD, s.placementOf("search_files", Placement.LOCAL));
        assertEquals(Placement.HYBRID, s.placementOf("read_file", Placement.LOCAL));
        assertEquals(Placement.LOCAL, s.placementOf("run_shell", Placement.LOCAL));
    }

    @Test
    void badValuesNameTheKey() {
        ConfigException placement = assertThrows(ConfigException.class, () -> RouterSettings.from(ConfigLoader.load(
                Map.of("EFFERENT_ROUTING_PLACEMENT_STAT", "MARS"), Map.of())));
        assertEquals("routing.placement.stat must be LOCAL, CLOUD or HYBRID, got 'MARS'", placement.getMessage());
        ConfigException duration = assertThrows(ConfigException.class, () -> RouterSettings.from(ConfigLoader.load(
                Map.of("EFFERENT_HANDS_HEARTBEAT__INTERVAL", "often"), Map.of())));
        assertEquals("setting 'hands.heartbeat-interval' (EFFERENT_HANDS_HEARTBEAT__INTERVAL) must be a duration such "
                + "as 500ms, 30s, 5m, 1h, 2d or ISO-8601 PT30S, got 'often'",
                duration.getMessage());
    }
}
