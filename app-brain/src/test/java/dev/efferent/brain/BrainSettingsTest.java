package dev.efferent.brain;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigLoader;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BrainSettingsTest {

    private static Config config(Map<String, String> values) {
        return ConfigLoader.load(values, Map.of(), Map.of());
    }

    @TempDir
    Path dir;

    @Test
    void defaultsToLoopbackOnTheStandardPortWithATokenMadeOnceAndKeptPrivate() throws IOException {
        Map<String, String> values = Map.of("brain.state-dir", dir.resolve("state").toString());
        BrainSettings s = BrainSettings.from(config(values), false);
        assertEquals("127.0.0.1", s.host());
        assertEquals(18789, s.port());
        Path file = dir.resolve("state/api-token");
        assertEquals(Optional.of(file), s.generatedTokenFile());
        assertEquals(s.apiToken().orElseThrow(), Files.readString(file).strip());
        assertTrue(s.apiToken().orElseThrow().length() >= 40, "32 random bytes");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(s.apiToken(), BrainSettings.from(config(values), false).apiToken(), "the same token after a restart");
    }

    @Test
    void secretsComeFromFilesSoThatPsNeverShowsThem() throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "from-a-file\n");
        BrainSettings s = BrainSettings.from(config(Map.of("api.token-file", token.toString())), false);
        assertEquals(Optional.of("from-a-file"), s.apiToken());
        assertEquals(Optional.empty(), s.generatedTokenFile());
        assertTrue(assertThrows(ConfigException.class, () -> BrainSettings.from(config(Map.of("api.token-file",
                dir.resolve("missing").toString())), false)).getMessage().startsWith("api.token-file "
                + dir.resolve("missing") + " cannot be read"));
        assertEquals("api.token and api.token-file are both set: keep one", assertThrows(ConfigException.class,
                () -> BrainSettings.from(config(Map.of("api.token", "t", "api.token-file", token.toString())), false))
                .getMessage());
    }

    @Test
    void allowedOriginsMustBeOrigins() {
        assertEquals("server.allowed-origins entries are web origins like https://console.example.com (scheme, host, "
                + "optional port; no path), got 'https://x.example/app'", assertThrows(ConfigException.class,
                () -> BrainSettings.from(config(Map.of("api.token", "t", "server.allowed-origins",
                        "https://ok.example, https://x.example/app")), false)).getMessage());
    }

    @Test
    void refusesToListenBeyondLoopbackWithoutSecrets() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> BrainSettings.from(config(Map.of("server.host", "0.0.0.0", "worker.secret", "s")), true));
        assertTrue(e.getMessage().startsWith("refusing to listen on 0.0.0.0 without api.token (EFFERENT_API_TOKEN) "
                + "set"), e.getMessage());
        BrainSettings ok = BrainSettings.from(config(Map.of("server.host", "0.0.0.0", "worker.secret", "s",
                "api.token", "t")), true);
        assertEquals("0.0.0.0", ok.host());
    }

    @Test
    void handsWithoutASecretTakePairedMachinesOnly() {
        BrainSettings s = BrainSettings.from(config(Map.of("api.token", "t")), true);
        assertTrue(s.workerSecret().isEmpty());
        assertEquals("brain.public-url must look like wss://brain.example.com or ws://203.0.113.5:18789 (how machines "
                + "reach this brain), got 'brain.example.com'", assertThrows(ConfigException.class,
                () -> BrainSettings.from(config(Map.of("api.token", "t", "brain.public-url", "brain.example.com")),
                        true)).getMessage());
    }

    @Test
    void commandLineOptionsAreChecked() {
        assertEquals("unknown option '--colour'", assertThrows(ConfigException.class,
                () -> BrainMain.configure(new String[]{"--colour"})).getMessage());
        assertEquals("true", BrainMain.configure(new String[]{"--hands", "--port", "9000"})
                .get("hands.enabled").asString().get());
        assertEquals("/run/secrets/worker", BrainMain.configure(new String[]{"--secret-file", "/run/secrets/worker"})
                .get("worker.secret-file").asString().get());
        assertTrue(assertThrows(ConfigException.class, () -> BrainMain.configure(new String[]{"--secret", "s"}))
                .getMessage().startsWith("--secret is not an option: a secret on the command line is shown by 'ps'"));
    }
}
