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
    void aRestartedBrainRemembersTheMachinesItHadSoWorkCanBeQueuedForThem() throws Exception {
        Launched first = brain("brain-1", Map.of());
        Path root = dir.resolve("laptop");
        Launched laptop = worker("laptop", root, List.of(first));
        awaitWorkerOnline(first, "laptop", 60);
        laptop.stop();
        first.stop();

        Launched second = brain("brain-2", Map.of());
        JsonNode workers = call(second, "GET", "/api/v1/workers", null, 200).path("workers");
        assertTrue(workers.toString().contains("\"name\":\"laptop\""), "remembered: " + workers);
        JsonNode queued = call(second, "POST", "/api/v1/tasks?wait=30", "{\"tool\":\"run_shell\",\"params\":"
                + "{\"command\":\"echo for the laptop\"},\"worker\":\"laptop\"}", 202);
        assertTrue(queued.path("offline").asBoolean(), queued.toString());
        worker("laptop", root, List.of(second));
        JsonNode done = awaitStatus(second, queued.path("id").asText(), "completed", 60);
        assertEquals("laptop", done.path("runningOn").asText());
        assertTrue(done.path("output").asText().contains("for the laptop"), done.toString());
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

    @Test
    void aConversationOutlivesTheBrainItWasHeldIn() throws Exception {
        Launched first = brain("brain-1", Map.of());
        try (ConsoleSocket console = ConsoleSocket.open(first, "durable1")) {
            console.await(m -> m.path("type").asText().equals("history"));
            console.say("/shell echo kept");
            console.await(m -> m.path("text").asText().startsWith("Your machine is offline."));
        }
        first.stop();

        Launched second = brain("brain-2", Map.of());
        try (ConsoleSocket console = ConsoleSocket.open(second, "durable1")) {
            JsonNode history = console.await(m -> m.path("type").asText().equals("history")).path("messages");
            assertEquals(2, history.size(), history.toString());
            assertEquals("person", history.get(0).path("from").asText());
            assertEquals("/shell echo kept", history.get(0).path("text").asText());
            String taskId = history.get(0).path("taskId").asText();
            assertEquals("run_shell", call(second, "GET", "/api/v1/tasks/" + taskId, null, 200).path("tool").asText(),
                    "the message keeps the id of the task it started");
            assertEquals("assistant", history.get(1).path("from").asText());
            assertEquals("Your machine is offline. I've queued this task (" + taskId + ").",
                    history.get(1).path("text").asText());
        }
        try (ConsoleSocket other = ConsoleSocket.open(second, "someoneelse")) {
            JsonNode history = other.await(m -> m.path("type").asText().equals("history")).path("messages");
            assertEquals(0, history.size(), "another conversation's messages are not shown");
        }
    }

    @Test
    void everyBrainShowsTheProgressOfATaskRunningOnAnotherBrainsWorker() throws Exception {
        Launched first = brain("brain-1", Map.of());
        Launched second = brain("brain-2", Map.of());
        worker("laptop", dir.resolve("laptop"), List.of(first));
        awaitWorkerOnline(first, "laptop", 60);
        String id = submit(first, "{\"tool\":\"run_shell\",\"params\":{\"command\":"
                + "\"for i in 1 2 3 4 5 6 7 8 9 10; do echo line $i; sleep 0.5; done\"}}");
        JsonNode seen = awaitTask(second, id, 30, t -> t.path("progress").path("message").asText().contains(" s: line "));
        assertEquals("running", seen.path("status").asText(), seen.toString());
        JsonNode done = awaitStatus(second, id, "completed", 30);
        assertTrue(done.path("progress").isMissingNode(), "a finished task shows no progress: " + done);
    }

    private boolean survivorLogOrWorkerShows(Launched survivor) {
        return launched.stream().filter(l -> l.name().equals("laptop")).findFirst().orElseThrow().output()
                .contains("Registered with brain ws://127.0.0.1:" + survivor.port());
    }
}
