package dev.efferent.brain;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigLoader;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BrainSettingsTest {

    private static Config config(Map<String, String> values) {
        return ConfigLoader.load(Optional.empty(), values, Map.of(), Map.of());
    }

    @Test
    void defaultsToLoopbackOnTheStandardPort() {
        BrainSettings s = BrainSettings.from(config(Map.of()), false);
        assertEquals("127.0.0.1", s.host());
        assertEquals(18789, s.port());
    }

    @Test
    void refusesToListenBeyondLoopbackWithoutSecrets() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> BrainSettings.from(config(Map.of("server.host", "0.0.0.0", "worker.secret", "s")), true));
        assertTrue(e.getMessage().startsWith("refusing to listen on 0.0.0.0 without api.token (EFFERENT_API_TOKEN) "
                + "and worker.secret (EFFERENT_WORKER_SECRET) set"), e.getMessage());
        BrainSettings ok = BrainSettings.from(config(Map.of("server.host", "0.0.0.0", "worker.secret", "s",
                "api.token", "t")), true);
        assertEquals("0.0.0.0", ok.host());
    }

    @Test
    void handsNeedAWorkerSecret() {
        ConfigException e = assertThrows(ConfigException.class, () -> BrainSettings.from(config(Map.of()), true));
        assertTrue(e.getMessage().startsWith("hands.enabled is true but worker.secret is not set"), e.getMessage());
    }

    @Test
    void commandLineOptionsAreChecked() {
        assertEquals("unknown option '--colour'", assertThrows(ConfigException.class,
                () -> BrainMain.configure(new String[]{"--colour"})).getMessage());
        assertEquals("true", BrainMain.configure(new String[]{"--hands", "--port", "9000"})
                .get("hands.enabled").asString().get());
    }
}
