package dev.efferent.brain;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A worker drops a link its brain leaves silent for 3 s ({@code worker.brain-timeout}); a brain busy
 * dispatching hundreds of tasks, and then a quiet one, answer the worker's pings, so the link is never dropped by
 * mistake.
 */
class WorkerLinkUnderLoadTest extends BrainFixture {
    private static final int TASKS = 400;

    @Test
    void aBusyBrainKeepsItsWorkerLink() throws Exception {
        startBrain(true, Map.of());
        startWorker("busy", dir.resolve("busy-root"), Map.of());
        awaitWorker("busy", true, 30);
        long start = System.nanoTime();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            ids.add(submit("{\"tool\":\"stat\",\"params\":{\"path\":\".\"},\"worker\":\"busy\"}").path("id").asText());
        }
        for (String id : ids) {
            awaitStatus(id, "completed", 120);
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        // Then a quiet spell longer than the brain timeout: only the brain's pongs keep the link.
        Thread.sleep(5000);
        awaitWorker("busy", true, 1);
        String log = workerLog("busy");
        System.out.println(TASKS + " tasks through one worker link in " + ms + " ms");
        assertEquals(1, log.lines().filter(l -> l.contains("Registered with brain")).count(), log);
        assertFalse(log.contains("Disconnected from"), log);
    }
}
