package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

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
}
