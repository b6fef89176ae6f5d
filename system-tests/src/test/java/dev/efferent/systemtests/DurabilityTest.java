package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Queued and running work outlives the brain that took it, with the PostgreSQL queue. */
class DurabilityTest extends SystemFixture {

    @Test
    void aTaskQueuedBeforeABrainRestartRunsOnceAfterIt() throws Exception {
        Launched first = brain("brain-1", Map.of());
        Path root = dir.resolve("laptop");
        Path marker = root.resolve("ran.txt");
        String id = submit(first, "{\"tool\":\"run_shell\",\"params\":{\"command\":\"echo once >> ran.txt\"}}");
        first.stop();

        Launched second = brain("brain-2", Map.of());
        assertEquals("queued", call(second, "GET", "/api/v1/tasks/" + id, null, 200).path("status").asText());
        worker("laptop", root, List.of(second));
        JsonNode done = awaitStatus(second, id, "completed", 60);
        assertEquals("laptop", done.path("runningOn").asText());
        assertEquals("once\n", Files.readString(marker), "ran exactly once");
    }

    @Test
    void aKilledBrainLosesNoTaskAndAnotherBrainStoresTheResults() throws Exception {
        Launched doomed = brain("brain-1", Map.of());
        Launched survivor = brain("brain-2", Map.of());
        Path root = dir.resolve("laptop");
        worker("laptop", root, List.of(doomed, survivor));
        awaitWorkerOnline(doomed, "laptop", 60);

        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ids.add(submit(doomed, "{\"tool\":\"run_shell\",\"params\":{\"command\":\"sleep 2; echo task-" + i
                    + " >> ran.txt\"}}"));
        }
        awaitStatus(doomed, ids.getFirst(), "running", 30);
        doomed.kill();

        for (String id : ids) {
            JsonNode t = awaitTask(survivor, id, 90, n -> n.path("status").asText().matches("completed|failed"));
            assertEquals("completed", t.path("status").asText(), t.toString());
        }
        List<String> left = sql("SELECT id, status FROM " + schema + ".tasks WHERE status NOT IN ('COMPLETED')");
        assertEquals(List.of(), left, "no task lost or left running");
        List<String> lines = Files.readAllLines(root.resolve("ran.txt"));
        assertEquals(6, lines.stream().distinct().count(), lines.toString());
        assertTrue(survivorLogOrWorkerShows(survivor), "the worker failed over to the second brain");
    }

    private boolean survivorLogOrWorkerShows(Launched survivor) {
        return launched.stream().filter(l -> l.name().equals("laptop")).findFirst().orElseThrow().output()
                .contains("Registered with brain ws://127.0.0.1:" + survivor.port());
    }
}
