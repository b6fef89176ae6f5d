package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two brains over one database, a worker on each: every task is claimed and run exactly once. */
class TwoBrainsTest extends SystemFixture {

    @Test
    void everyTaskRunsExactlyOnce() throws Exception {
        Launched a = brain("brain-a", Map.of());
        Launched b = brain("brain-b", Map.of());
        Path shared = dir.resolve("shared");
        Files.createDirectories(shared);
        Path log = shared.resolve("ran.txt");
        // Both workers append to one file: it must be inside a root of each, as the shell sandbox allows no other writes.
        worker("worker-a", dir.resolve("root-a"), List.of(a), "--root", shared.toString());
        worker("worker-b", dir.resolve("root-b"), List.of(b), "--root", shared.toString());
        awaitWorkerOnline(a, "worker-a", 60);
        awaitWorkerOnline(b, "worker-b", 60);

        int count = 60;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Launched at = i % 2 == 0 ? a : b;
            ids.add(submit(at, "{\"tool\":\"run_shell\",\"params\":{\"command\":\"echo task-" + i + " >> " + log
                    + "\"}}"));
        }
        Set<String> ranOn = new HashSet<>();
        for (String id : ids) {
            JsonNode t = awaitStatus(a, id, 60, "completed");
            ranOn.add(t.path("runningOn").asText());
        }
        List<String> lines = Files.readAllLines(log);
        assertEquals(count, lines.size(), "each task ran once: " + lines);
        assertEquals(count, new HashSet<>(lines).size());
        assertEquals(List.of(String.valueOf(count)), sql("SELECT count(*) FROM " + schema
                + ".tasks WHERE status = 'COMPLETED' AND attempt = 1"));
        assertTrue(ranOn.size() == 2, "both workers took work: " + ranOn);
    }

    private JsonNode awaitStatus(Launched brain, String id, int seconds, String status) throws Exception {
        return awaitStatus(brain, id, status, seconds);
    }
}
