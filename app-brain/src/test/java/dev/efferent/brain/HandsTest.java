package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hands mode with real worker processes over real WebSockets on loopback. */
class HandsTest extends BrainFixture {

    @Test
    void workerRegistersAndRunsADispatchedTask() throws Exception {
        startBrain(true, Map.of());
        Path root = dir.resolve("laptop-root");
        startWorker("laptop", root, Map.of());
        JsonNode worker = awaitWorker("laptop", true, 30);
        assertTrue(worker.path("tools").toString().contains("read_file"), worker.toString());
        Files.writeString(root.resolve("todo.txt"), "water the plants\n");

        JsonNode done = call("POST", "/api/v1/tasks?wait=30",
                "{\"tool\":\"read_file\",\"params\":{\"path\":\"todo.txt\"}}", 200);
        assertEquals("completed", done.path("status").asText());
        assertEquals("laptop", done.path("runningOn").asText());
        assertEquals("water the plants\n", done.path("output").asText());
    }

    @Test
    void shellCommandsSeeNoSecretOfTheBrainOrTheWorker() throws Exception {
        startBrain(true, Map.of());
        startWorker("laptop", dir.resolve("laptop-root"), Map.of("EFFERENT_API_TOKEN", "worker-side-secret"));
        awaitWorker("laptop", true, 30);
        JsonNode onWorker = call("POST", "/api/v1/tasks?wait=30", "{\"tool\":\"run_shell\",\"params\":"
                + "{\"command\":\"env\"},\"worker\":\"laptop\"}", 200);
        assertEquals("laptop", onWorker.path("runningOn").asText());
        assertTrue(onWorker.path("output").asText().contains("PATH="), onWorker.toString());
        assertFalse(onWorker.path("output").asText().contains("EFFERENT_"), onWorker.path("output").asText());
        assertFalse(onWorker.path("output").asText().contains(SECRET), onWorker.path("output").asText());
    }

    @Test
    void taskQueuedWhileOfflineRunsWhenTheWorkerConnects() throws Exception {
        startBrain(true, Map.of());
        Path root = dir.resolve("laptop-root");
        Files.createDirectories(root);
        Files.writeString(root.resolve("later.txt"), "worth the wait\n");
        JsonNode queued = submit("{\"tool\":\"read_file\",\"params\":{\"path\":\"later.txt\"}}");
        String id = queued.path("id").asText();
        assertEquals("queued", queued.path("status").asText());
        assertTrue(queued.path("offline").asBoolean());
        assertEquals("Your machine is offline. I've queued this task (" + id + ").", queued.path("message").asText());
        assertEquals("waiting for a worker that has read_file to come online", task(id).path("waiting").asText());
        // Asked to wait (the client's own timeout is 60 s), it answers at once all the same: nothing can finish.
        JsonNode waited = call("POST", "/api/v1/tasks?wait=300", "{\"tool\":\"stat\",\"params\":{\"path\":\".\"}}",
                202);
        assertTrue(waited.path("offline").asBoolean(), waited.toString());
        assertEquals("queued", waited.path("status").asText());

        startWorker("laptop", root, Map.of());
        JsonNode done = awaitStatus(id, "completed", 30);
        assertEquals("worth the wait\n", done.path("output").asText());
        assertTrue(workerLog("laptop").contains("2 tasks queued for this worker"), workerLog("laptop"));
    }

    @Test
    void eachTaskGoesToAWorkerThatHasItsToolAndANamedTargetWins() throws Exception {
        startBrain(true, Map.of());
        startWorker("files", dir.resolve("files-root"), Map.of("EFFERENT_TOOLS_SHELL_ENABLED", "false"));
        startWorker("shell", dir.resolve("shell-root"), Map.of("EFFERENT_TOOLS_FS_ENABLED", "false"));
        startWorker("both", dir.resolve("both-root"), Map.of());
        awaitWorker("files", true, 30);
        awaitWorker("shell", true, 30);
        awaitWorker("both", true, 30);

        JsonNode shell = call("POST", "/api/v1/tasks?wait=30",
                "{\"tool\":\"run_shell\",\"params\":{\"command\":\"true\"},\"worker\":\"shell\"}", 200);
        assertEquals("shell", shell.path("runningOn").asText());
        JsonNode named = call("POST", "/api/v1/tasks?wait=30",
                "{\"tool\":\"stat\",\"params\":{\"path\":\".\"},\"worker\":\"both\"}", 200);
        assertEquals("both", named.path("runningOn").asText());
        JsonNode files = call("POST", "/api/v1/tasks?wait=30",
                "{\"tool\":\"list_dir\",\"params\":{},\"worker\":\"files\"}", 200);
        assertEquals("files", files.path("runningOn").asText());
        JsonNode anyShell = call("POST", "/api/v1/tasks?wait=30",
                "{\"tool\":\"run_shell\",\"params\":{\"command\":\"true\"}}", 200);
        assertFalse(anyShell.path("runningOn").asText().equals("files"), "files has no run_shell");

        JsonNode wrong = call("POST", "/api/v1/tasks",
                "{\"tool\":\"run_shell\",\"params\":{\"command\":\"true\"},\"worker\":\"nobody\"}", 400);
        assertTrue(wrong.path("error").asText().startsWith("no worker named 'nobody'"), wrong.toString());
        JsonNode tools = call("GET", "/api/v1/tools", null, 200);
        for (JsonNode t : tools.path("tools")) {
            if (t.path("name").asText().equals("run_shell")) {
                assertFalse(t.path("workers").toString().contains("files"), t.toString());
            }
        }
    }
}
