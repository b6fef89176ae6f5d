package dev.efferent.worker;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigLoader;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkerMainTest {
    @TempDir
    static Path tmp;

    private static String secretFile() {
        try {
            return Files.writeString(tmp.resolve("secret"), "s\n").toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void optionsBecomeSettings() {
        Config config = WorkerMain.configure(new String[]{"--brain-url", "ws://a:18789", "--brain-url=wss://b",
                "--secret-file", secretFile(), "--name", "laptop", "--root", "/tmp", "--max-concurrency", "8",
                "--state-dir", "/tmp/state", "--max-reconnect-attempts", "3"});
        WorkerSettings s = WorkerSettings.from(config);
        assertEquals(List.of(URI.create("ws://a:18789"), URI.create("wss://b")), s.brainUrls());
        assertEquals(Optional.of("s"), s.secret());
        assertEquals("laptop", s.name());
        assertEquals(8, s.maxConcurrency());
        assertEquals(Path.of("/tmp/state"), s.stateDir());
        assertEquals(3, s.maxReconnectAttempts());
        assertEquals("/tmp", config.get("tools.roots").asString().get());
    }

    @Test
    void badOptionsAreNamed() {
        assertEquals("unknown option '--colour'",
                assertThrows(ConfigException.class, () -> WorkerMain.configure(new String[]{"--colour", "red"}))
                        .getMessage());
        assertEquals("option --secret-file needs a value",
                assertThrows(ConfigException.class, () -> WorkerMain.configure(new String[]{"--secret-file"}))
                        .getMessage());
    }

    @Test
    void aSecretOnTheCommandLineIsRefusedBecausePsShowsIt() {
        assertEquals("--secret is gone: a secret on the command line is shown by 'ps' to every user of this "
                + "machine. Set EFFERENT_WORKER_SECRET or pass --secret-file FILE", assertThrows(ConfigException.class,
                () -> WorkerMain.configure(new String[]{"--brain-url", "ws://x", "--secret", "s"})).getMessage());
    }

    @Test
    void missingOrBadSettingsSayWhatToDo() {
        assertEquals("no brain to connect to: pass --brain-url ws://<brain-host>:18789 (or set worker.brain-urls / "
                + "EFFERENT_WORKER_BRAIN__URLS)", assertThrows(ConfigException.class,
                () -> WorkerSettings.from(WorkerMain.configure(new String[]{"--secret-file", secretFile()}))).getMessage());
        assertEquals("brain URL 'ftp://x' must look like ws://host:18789 or wss://host", assertThrows(ConfigException.class,
                () -> WorkerSettings.from(WorkerMain.configure(new String[]{"--brain-url", "ftp://x", "--secret-file", secretFile()})))
                .getMessage());
        assertEquals("worker.max-concurrency must be from 1 to 1024, got 0", assertThrows(ConfigException.class,
                () -> WorkerSettings.from(WorkerMain.configure(new String[]{"--brain-url", "ws://x", "--secret-file", secretFile(),
                        "--max-concurrency", "0"}))).getMessage());
    }

    @Test
    void aPairedTokenComesBeforeTheSecretAndNeitherSaysHowToJoin() throws Exception {
        Path state = Files.createTempDirectory("efferent-state");
        WorkerSettings bare = WorkerSettings.from(WorkerMain.configure(new String[]{"--brain-url", "ws://x",
                "--state-dir", state.toString()}));
        assertEquals("this machine is not paired and has no worker secret: ask the brain for a code (bin/efferent "
                + "pair, or /pair in the chat) and start with --pair CODE, or set EFFERENT_WORKER_SECRET to the brain's "
                + "worker.secret (or pass --secret-file FILE)", assertThrows(ConfigException.class,
                () -> Credential.resolve(bare, "id")).getMessage());
        Files.writeString(state.resolve("worker-token"), "efw_kept\n");
        WorkerSettings both = WorkerSettings.from(WorkerMain.configure(new String[]{"--brain-url", "ws://x",
                "--state-dir", state.toString(), "--secret-file", secretFile()}));
        Credential c = Credential.resolve(both, "id");
        assertEquals("efw_kept", c.bearer());
        assertTrue(c.paired());
        assertFalse(c.toString().contains("efw_kept"), "the token in a log line");
        // A brain that cannot be reached to pair: said, with the URL.
        WorkerSettings pairing = WorkerSettings.from(WorkerMain.configure(new String[]{"--brain-url",
                "ws://127.0.0.1:1", "--state-dir", state.toString(), "--pair", "K7QM3-XWD8P"}));
        assertTrue(assertThrows(ConfigException.class, () -> Credential.resolve(pairing, "id")).getMessage()
                .startsWith("cannot reach the brain at http://127.0.0.1:1/api/v1/pair to pair"));
    }

    @Test
    void linkTimeoutsDefaultToSecondsAndUseTheProjectsDurations() {
        WorkerSettings defaults = WorkerSettings.from(ConfigLoader.load(Map.of("worker.brain-urls", "ws://b",
                "worker.secret", "s"), Map.of(), Map.of()));
        assertEquals(Duration.ofSeconds(3), defaults.brainTimeout());
        assertEquals(Duration.ofSeconds(10), defaults.registerTimeout());
        WorkerSettings set = WorkerSettings.from(ConfigLoader.load(Map.of(), Map.of(
                "EFFERENT_WORKER_BRAIN__URLS", "ws://b", "EFFERENT_WORKER_SECRET", "s",
                "EFFERENT_WORKER_BRAIN__TIMEOUT", "1500ms", "EFFERENT_WORKER_REGISTER__TIMEOUT", "PT20S"), Map.of()));
        assertEquals(Duration.ofMillis(1500), set.brainTimeout());
        assertEquals(Duration.ofSeconds(20), set.registerTimeout());
        assertEquals("worker.register-timeout must be longer than 0, got '0s'", assertThrows(ConfigException.class,
                () -> WorkerSettings.from(ConfigLoader.load(Map.of("worker.brain-urls", "ws://b",
                        "worker.secret", "s", "worker.register-timeout", "0s"), Map.of(), Map.of()))).getMessage());
    }
}
