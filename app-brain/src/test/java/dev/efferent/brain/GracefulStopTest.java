package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A worker stopped with SIGTERM lets running tasks finish, and hands back those that cannot: nothing is cancelled. */
class GracefulStopTest extends BrainFixture {

    @Test
    void aTaskThatFinishesWithinTheGraceIsReportedNormally() throws Exception {
        startBrain(true, Map.of());
        Process worker = startWorker("laptop", dir.resolve("root"), Map.of("EFFERENT_WORKER_SHUTDOWN__GRACE", "20s"));
        awaitWorker("laptop", true, 30);
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":\"sleep 2; echo finished\"}}")
                .path("id").asText();
        awaitStatus(id, "running", 30);
        worker.destroy();
        JsonNode done = awaitStatus(id, "completed", 30);
        assertEquals("finished", done.path("output").asText().strip().lines().filter(l -> !l.isBlank())
                .reduce((a, b) -> b).orElse(""));
        assertTrue(worker.waitFor(30, TimeUnit.SECONDS));
    }

    @Test
    void aTaskStillRunningAfterTheGraceIsHandedBackAndRunsOnTheNextWorker() throws Exception {
        startBrain(true, Map.of());
        Path root = dir.resolve("shared-root");
        Process first = startWorker("first", root, Map.of("EFFERENT_WORKER_SHUTDOWN__GRACE", "1s"));
        awaitWorker("first", true, 30);
        // The first run leaves a mark and takes long; a run after the hand-back sees the mark and ends at once.
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":\"if [ -f mark ]; then echo second run; "
                + "else touch mark; sleep 60; fi\",\"timeout\":120}}").path("id").asText();
        awaitStatus(id, "running", 30);
        first.destroy();
        assertTrue(first.waitFor(30, TimeUnit.SECONDS));
        JsonNode queued = awaitStatus(id, "queued", 10);
        assertEquals(0, queued.path("attempt").asInt(), "a hand-back uses up no attempt: " + queued);

        startWorker("second", root, Map.of());
        JsonNode done = awaitStatus(id, "completed", 30);
        assertTrue(done.path("output").asText().contains("second run"), done.toString());
        assertEquals(1, done.path("attempt").asInt());
        assertEquals("second", done.path("runningOn").asText());
    }
}
