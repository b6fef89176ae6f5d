package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A worker stopped with SIGTERM lets running tasks finish, and hands back those that cannot: nothing is cancelled. */
class GracefulStopTest extends BrainFixture {

    @Test
    void aTaskThatFinishesWithinTheGraceIsReportedNormally() throws Exception {
        startBrain(true, Map.of());
        Path root = dir.resolve("root");
        Process worker = startWorker("laptop", root, Map.of("EFFERENT_WORKER_SHUTDOWN__GRACE", "20s"));
        awaitWorker("laptop", true, 30);
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":\"touch started; sleep 2; echo finished\"}}")
                .path("id").asText();
        awaitFile(root.resolve("started"));
        worker.destroy();

        JsonNode done = awaitStatus(id, "completed", 30);
        assertEquals("finished", lastLine(done));
        assertTrue(worker.waitFor(30, TimeUnit.SECONDS), "the worker did not stop after its task finished");
        assertTrue(workerLog("laptop").contains("Every running task finished"), workerLog("laptop"));
        assertTrue(workerLog("laptop").contains("Worker laptop stopped"), workerLog("laptop"));
    }

    @Test
    void aTaskStillRunningAfterTheGraceIsHandedBackAndRunsAgainElsewhere() throws Exception {
        startBrain(true, Map.of());
        Path root = dir.resolve("root");
        Process worker = startWorker("laptop", root, Map.of("EFFERENT_WORKER_SHUTDOWN__GRACE", "1s"));
        awaitWorker("laptop", true, 30);
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":"
                + "\"echo run >> runs; if [ -e second ]; then echo again; else touch second; sleep 60; fi\"}}")
                .path("id").asText();
        awaitFile(root.resolve("second"));
        worker.destroy();

        assertTrue(worker.waitFor(30, TimeUnit.SECONDS), "the worker did not stop after the grace");
        JsonNode back = awaitStatus(id, "queued", 10);
        assertEquals("", back.path("error").asText(""), "a handed-back task carries no error");
        assertTrue(workerLog("laptop").contains("Handed back 1 task"), workerLog("laptop"));

        // The same machine comes back (a routine restart): the task runs there, once more, and completes.
        startWorker("laptop", root, Map.of());
        JsonNode done = awaitStatus(id, "completed", 30);
        assertEquals("again", lastLine(done));
        assertEquals(2, Files.readAllLines(root.resolve("runs")).size());
    }

    private static String lastLine(JsonNode task) {
        return task.path("output").asText().strip().lines().filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse("");
    }

    private static void awaitFile(Path file) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() > end) {
                throw new AssertionError(file + " did not appear within 30 s: the task never started");
            }
            Thread.sleep(20);
        }
    }
}
