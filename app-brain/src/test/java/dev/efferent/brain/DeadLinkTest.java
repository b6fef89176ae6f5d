package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker that dies, or freezes, without closing its socket is noticed in seconds, not at the heartbeat
 * timeout: the brain pings quiet links and drops those that do not answer within {@code hands.link-timeout}.
 */
class DeadLinkTest extends BrainFixture {
    /** Heartbeats far apart: only the link check can notice the death within this test. */
    private static final Map<String, String> SLOW_HEARTBEATS = Map.of("hands.heartbeat-interval", "60s");

    private long awaitOfflineMillis(String name) throws InterruptedException {
        long start = System.nanoTime();
        awaitWorker(name, false, 20);
        return (System.nanoTime() - start) / 1_000_000;
    }

    @Test
    void aKilledWorkerIsOfflineWithinSecondsAndItsTaskFails() throws Exception {
        startBrain(true, SLOW_HEARTBEATS);
        Path root = dir.resolve("laptop-root");
        Process worker = startWorker("laptop", root, Map.of("EFFERENT_TOOLS_SHELL_SANDBOX", "none"));
        awaitWorker("laptop", true, 30);
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":\"sleep 60\",\"timeout\":120}}")
                .path("id").asText();
        awaitStatus(id, "running", 30);

        worker.destroyForcibly();
        long ms = awaitOfflineMillis("laptop");
        JsonNode failed = awaitStatus(id, "failed", 10);
        assertEquals("Worker disconnected", failed.path("error").asText());
        System.out.println("killed worker offline after " + ms + " ms");
        assertTrue(ms < 10_000, "noticed after " + ms + " ms");
    }

    @Test
    void aFrozenWorkerWhoseSocketStaysOpenIsDroppedBySilence() throws Exception {
        startBrain(true, SLOW_HEARTBEATS);
        Process worker = startWorker("frozen", dir.resolve("frozen-root"), Map.of());
        awaitWorker("frozen", true, 30);
        // SIGSTOP: the process can answer nothing, but its socket stays open; no close reaches the brain.
        signal(worker, "STOP");
        try {
            long ms = awaitOfflineMillis("frozen");
            System.out.println("frozen worker offline after " + ms + " ms");
            assertTrue(ms < 10_000, "noticed after " + ms + " ms");
        } finally {
            signal(worker, "CONT");
        }
    }

    private static void signal(Process p, String name) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + name, String.valueOf(p.pid())).inheritIO().start().waitFor());
    }
}
