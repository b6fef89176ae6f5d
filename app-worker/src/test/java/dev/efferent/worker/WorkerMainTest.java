package dev.efferent.worker;

import dev.efferent.core.config.ConfigException;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class WorkerMainTest {

    @Test
    void optionsBecomeSettings() {
        Config config = WorkerMain.configure(new String[]{"--brain-url", "ws://a:18789", "--brain-url=wss://b",
                "--secret", "s", "--name", "laptop", "--root", "/tmp", "--max-concurrency", "8",
                "--state-dir", "/tmp/state", "--max-reconnect-attempts", "3"});
        WorkerSettings s = WorkerSettings.from(config);
        assertEquals(List.of(URI.create("ws://a:18789"), URI.create("wss://b")), s.brainUrls());
        assertEquals("s", s.secret());
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
        assertEquals("option --secret needs a value",
                assertThrows(ConfigException.class, () -> WorkerMain.configure(new String[]{"--secret"})).getMessage());
    }

    @Test
    void missingOrBadSettingsSayWhatToDo() {
        assertEquals("no brain to connect to: pass --brain-url ws://<brain-host>:18789 (or set worker.brain-urls / "
                + "EFFERENT_WORKER_BRAIN__URLS)", assertThrows(ConfigException.class,
                () -> WorkerSettings.from(WorkerMain.configure(new String[]{"--secret", "s"}))).getMessage());
        assertEquals("brain URL 'ftp://x' must look like ws://host:18789 or wss://host", assertThrows(ConfigException.class,
                () -> WorkerSettings.from(WorkerMain.configure(new String[]{"--brain-url", "ftp://x", "--secret", "s"})))
                .getMessage());
        assertEquals("worker.max-concurrency must be from 1 to 1024, got 0", assertThrows(ConfigException.class,
                () -> WorkerSettings.from(WorkerMain.configure(new String[]{"--brain-url", "ws://x", "--secret", "s",
                        "--max-concurrency", "0"}))).getMessage());
    }
}
