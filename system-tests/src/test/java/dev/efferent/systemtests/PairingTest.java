package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Joining a machine without the shared secret, with real processes: {@code bin/efferent pair}'s program asks the
 * brain for a code, a worker started with {@code --pair CODE} gets a token of its own (kept mode 600) and works, and
 * comes back after a restart without the code; the code works once; the token does not let another worker id in;
 * a revoked machine is disconnected at once and refused when it tries again.
 */
class PairingTest extends SystemFixture {
    /** No worker secret: paired machines only. */
    private static final Map<String, String> NO_SECRET = Map.of("EFFERENT_WORKER_SECRET", "");

    @Test
    void aMachineJoinsWithACodeWorksAndIsShutOutWhenRevoked() throws Exception {
        Launched brain = brain("brain", NO_SECRET);
        String code = pairCommand(brain);

        // A wrong code: the worker says why and stops; nothing is paired.
        Launched intruder = worker("intruder", dir.resolve("intruder"), List.of(brain), List.of(), NO_SECRET,
                "--pair", "23456-78923");
        assertTrue(intruder.process().waitFor(60, TimeUnit.SECONDS), "a worker with a wrong code kept running");
        assertEquals(2, intruder.process().exitValue());
        assertTrue(intruder.output().contains("refused to pair this machine (403: the pairing code is wrong, used or "
                + "expired"), intruder.output());

        Launched laptop = worker("laptop", dir.resolve("laptop"), List.of(brain), List.of(), NO_SECRET, "--pair", code);
        awaitWorkerOnline(brain, "laptop", 60);
        Path token = dir.resolve("state-laptop").resolve("worker-token");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(token)));
        JsonNode done = call(brain, "POST", "/api/v1/tasks?wait=30", "{\"tool\":\"run_shell\",\"params\":{\"command\":"
                + "\"echo paired\"},\"worker\":\"laptop\"}", 200);
        assertEquals("completed", done.path("status").asText(), done.toString());

        // The code was used: a second machine with it is refused.
        assertEquals(403, status(brain, "POST", "/api/v1/pair", "{\"code\":\"" + code + "\",\"workerId\":\"other-id\","
                + "\"name\":\"other\"}"));

        // A restart needs no code: the kept token gets it in.
        laptop.stop();
        laptop = worker("laptop", dir.resolve("laptop"), List.of(brain), List.of(), NO_SECRET);
        awaitWorkerOnline(brain, "laptop", 60);

        // The token copied to another machine (another worker id) does not let that one in.
        Path thiefState = dir.resolve("state-thief");
        Files.createDirectories(thiefState);
        Files.copy(token, thiefState.resolve("worker-token"));
        Launched thief = worker("thief", dir.resolve("thief"), List.of(brain), List.of(), NO_SECRET);
        awaitLog(thief, "this token was paired to worker id");
        assertFalse(online(brain, "thief"), "a worker with another machine's token came online");
        thief.kill();

        JsonNode paired = call(brain, "GET", "/api/v1/worker-tokens", null, 200).path("workers");
        assertEquals(1, paired.size(), paired.toString());
        assertEquals("laptop", paired.get(0).path("name").asText());
        assertFalse(paired.toString().contains(Files.readString(token, StandardCharsets.UTF_8).strip()),
                "the list shows the token");

        JsonNode revoked = call(brain, "DELETE", "/api/v1/worker-tokens/laptop", null, 200);
        assertTrue(revoked.path("disconnected").asBoolean(), revoked.toString());
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (online(brain, "laptop") && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        assertFalse(online(brain, "laptop"), "a revoked worker is still online");
        awaitLog(laptop, "refused this machine's paired token (401): it was revoked");
        assertFalse(online(brain, "laptop"), "a revoked worker came back");
        assertEquals(404, status(brain, "DELETE", "/api/v1/worker-tokens/laptop", null));
    }

    @Test
    void theSharedSecretStillLetsAScriptsWorkerIn() throws Exception {
        Launched brain = brain("brain", Map.of());
        String code = call(brain, "POST", "/api/v1/pairing-codes", null, 201).path("code").asText();
        worker("ci", dir.resolve("ci"), List.of(brain));
        worker("laptop", dir.resolve("laptop"), List.of(brain), List.of(), NO_SECRET, "--pair", code);
        awaitWorkerOnline(brain, "ci", 60);
        awaitWorkerOnline(brain, "laptop", 60);
    }

    /** Runs the {@code bin/efferent pair} program against the brain; the code from what it prints. */
    private String pairCommand(Launched brain) throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Duser.home=" + home, "--enable-native-access=org.jline", "-p", System.getProperty("efferent.test.chat.lib"),
                "-m", "efferent.chat/dev.efferent.chat.PairMain", "--brain-url", "http://127.0.0.1:" + brain.port())
                .redirectErrorStream(true);
        pb.environment().put("EFFERENT_API_TOKEN", TOKEN);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        Matcher m = Pattern.compile(
                "Pairing code: ([A-Z0-9]{5}-[A-Z0-9]{5}) \\(works once, for 10 minutes\\)\\nOn the machine to join, run:\\n"
                        + "  bin/efferent worker --brain-url ws://127\\.0\\.0\\.1:" + brain.port() + " --pair \\1\\n")
                .matcher(out);
        assertTrue(m.find(), out);
        return m.group(1);
    }

    private boolean online(Launched brain, String name) throws Exception {
        for (JsonNode w : call(brain, "GET", "/api/v1/workers", null, 200).path("workers")) {
            if (w.path("name").asText().equals(name) && w.path("online").asBoolean()) {
                return true;
            }
        }
        return false;
    }

    private static void awaitLog(Launched process, String text) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < end) {
            if (process.output().contains(text)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(process.name() + " never logged '" + text + "':\n" + process.output());
    }
}
