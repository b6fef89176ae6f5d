package dev.efferent.systemtests;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bin/efferent worker|brain --print-service / --install-service}: the systemd units they write on Linux. */
class ServiceDefinitionTest {
    private static final Path ROOT = Path.of(System.getProperty("efferent.test.root")).toAbsolutePath().normalize();

    @TempDir
    Path home;

    private String efferent(String... args) throws Exception {
        return efferent(0, args);
    }

    private String efferent(int exit, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", ROOT.resolve("bin/efferent").toString()));
        command.addAll(List.of(args));
        Path err = home.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(err.toFile());
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("XDG_CONFIG_HOME");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        // Warnings (a brain unit run as root, settings the service will not see) go to standard error.
        String warnings = Files.readString(err);
        Files.delete(err);
        assertEquals(exit, p.exitValue(), out + warnings);
        return exit == 0 ? out : out + warnings;
    }

    @Test
    void aWorkerInstallsAsAUserUnitThatRestartsItWithItsOptionsAndNoSecret() throws Exception {
        String out = efferent("worker", "--install-service", "--secret-file", "/home/me/my secret",
                "--brain-url", "ws://brain.example.com:18789", "--name", "laptop", "--root", "/srv/100%");
        Path unit = home.resolve(".config/systemd/user/efferent-worker.service");
        assertTrue(out.startsWith("efferent: wrote " + unit), out);
        assertTrue(out.contains("systemctl --user daemon-reload && systemctl --user enable --now efferent-worker"), out);
        String text = Files.readString(unit);
        assertTrue(text.contains("ExecStart=\"" + ROOT.resolve("bin/efferent") + "\" \"worker\" \"--secret-file\" "
                + "\"/home/me/my secret\" \"--brain-url\" \"ws://brain.example.com:18789\" \"--name\" \"laptop\" "
                + "\"--root\" \"/srv/100%%\"\n"), text);
        assertTrue(text.contains("\nRestart=on-failure\n"), text);
        assertTrue(text.contains("\nWantedBy=default.target\n"), text);
        assertTrue(text.contains("\nWorkingDirectory=%h\n"), text);
        assertTrue(!text.contains("--install-service") && !text.contains("EFFERENT_WORKER_SECRET"), text);
    }

    @Test
    void anOptionCannotAddDirectivesAndDollarsStayLiteral() throws Exception {
        String refused = efferent(1, "worker", "--install-service", "--name", "laptop\nExecStartPre=/bin/sh -c evil");
        assertTrue(refused.contains("an option holds a control character"), refused);
        assertTrue(!Files.exists(home.resolve(".config/systemd/user/efferent-worker.service")), "nothing written");
        String text = efferent("worker", "--print-service", "--deny", "run_shell if command~.*$HOME.*");
        assertTrue(text.contains("\"run_shell if command~.*$$HOME.*\""), text);
        // A pairing code works once: a unit that pairs at every start would fail at the second.
        String pair = efferent(1, "worker", "--install-service", "--pair", "K7QM3-XWD8P");
        assertTrue(pair.contains("--pair is used once, not at every start"), pair);
        assertTrue(!Files.exists(home.resolve(".config/systemd/user/efferent-worker.service")), "nothing written");
    }

    @Test
    void aBrainPrintsASystemUnitRunAsItsUserWithoutWritingIt() throws Exception {
        String text = efferent("brain", "--print-service", "--hands", "--secret-file", "/etc/efferent/secret");
        assertTrue(text.startsWith("[Unit]\nDescription=Efferent brain\n"), text);
        assertTrue(text.contains("ExecStart=\"" + ROOT.resolve("bin/efferent") + "\" \"brain\" \"--hands\" "
                + "\"--secret-file\" \"/etc/efferent/secret\"\n"), text);
        assertTrue(text.contains("\nUser=" + System.getProperty("user.name") + "\n"), text);
        assertTrue(text.contains("\nWantedBy=multi-user.target\n"), text);
        try (var files = Files.list(home)) {
            assertEquals(0, files.count(), "nothing written");
        }
    }
}
