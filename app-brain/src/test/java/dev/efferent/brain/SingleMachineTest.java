package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Single-machine mode: the brain alone runs the tools in its own process, behind the same API. */
class SingleMachineTest extends BrainFixture {

    @Test
    void runShellAndReadFileThroughTheRestApi() throws IOException {
        startBrain(false, Map.of());
        Files.writeString(brainRoot().resolve("notes.txt"), "buy milk\n");

        JsonNode read = call("POST", "/api/v1/tasks?wait=20",
                "{\"tool\":\"read_file\",\"params\":{\"path\":\"notes.txt\"}}", 200);
        assertEquals("completed", read.path("status").asText());
        assertEquals("buy milk\n", read.path("output").asText());
        assertEquals("brain", read.path("runningOn").asText());

        JsonNode shell = call("POST", "/api/v1/tasks?wait=20",
                "{\"tool\":\"run_shell\",\"params\":{\"command\":\"echo hello && pwd\"}}", 200);
        assertEquals("completed", shell.path("status").asText());
        assertEquals("hello\n" + brainRoot().toRealPath() + "\n",
                shell.path("result").path("structuredContent").path("stdout").asText());
        JsonNode stored = task(shell.path("id").asText());
        assertEquals(shell.path("result"), stored.path("result"));
        assertEquals("completed", stored.path("status").asText());
    }

    @Test
    void apiErrorsAreJsonWithTheRightStatus() {
        startBrain(false, Map.of());
        assertEquals(401, request("GET", "/api/v1/tasks", null, null).statusCode());
        assertEquals(401, request("GET", "/api/v1/tasks", null, "wrong").statusCode());
        assertTrue(request("GET", "/api/v1/tasks", null, "wrong").body().contains("missing or wrong API token"));

        JsonNode unknownTool = call("POST", "/api/v1/tasks", "{\"tool\":\"teleport\"}", 400);
        assertTrue(unknownTool.path("error").asText().startsWith("unknown tool 'teleport'; known tools: ["),
                unknownTool.toString());
        assertEquals("field 'tool' is required: the tool to run, e.g. {\"tool\": \"read_file\", \"params\": "
                + "{\"path\": \"notes.txt\"}}", call("POST", "/api/v1/tasks", "{}", 400).path("error").asText());
        assertTrue(call("POST", "/api/v1/tasks", "{nope", 400).path("error").asText()
                .startsWith("request body is not valid JSON"));
        assertEquals("field 'priority' must be from 1 to 10, got 11", call("POST", "/api/v1/tasks",
                "{\"tool\":\"stat\",\"params\":{\"path\":\".\"},\"priority\":11}", 400).path("error").asText());
        assertTrue(call("POST", "/api/v1/tasks", "{\"tool\":\"read_file\",\"params\":{}}", 400).path("error").asText()
                .startsWith("invalid params for read_file: $: required property 'path' not found"));
        assertEquals("unknown field 'colour'; a task takes [idempotencyKey, params, priority, timeoutMs, tool, "
                + "worker]", call("POST", "/api/v1/tasks", "{\"tool\":\"stat\",\"colour\":1}", 400)
                .path("error").asText());
        assertEquals("no task with id 'nope'", call("GET", "/api/v1/tasks/nope", null, 404).path("error").asText());
        assertEquals(404, call("POST", "/api/v1/tasks/nope/cancel", null, 404).path("status").asInt());
        assertTrue(call("GET", "/api/v1/tasks?status=lost", null, 400).path("error").asText()
                .startsWith("unknown status 'lost'"));

        JsonNode done = call("POST", "/api/v1/tasks?wait=20", "{\"tool\":\"stat\",\"params\":{\"path\":\".\"}}", 200);
        JsonNode conflict = call("POST", "/api/v1/tasks/" + done.path("id").asText() + "/cancel", null, 409);
        assertTrue(conflict.path("error").asText().contains("is already completed"), conflict.toString());
    }

    @Test
    void listsTasksByStatusAndToolsWithTheirSpecs() {
        startBrain(false, Map.of());
        call("POST", "/api/v1/tasks?wait=20", "{\"tool\":\"stat\",\"params\":{\"path\":\".\"}}", 200);
        JsonNode completed = call("GET", "/api/v1/tasks?status=completed", null, 200);
        assertEquals(1, completed.path("tasks").size());
        assertEquals(0, call("GET", "/api/v1/tasks?status=queued,running", null, 200).path("tasks").size());
        JsonNode tools = call("GET", "/api/v1/tools", null, 200).path("tools");
        JsonNode readFile = null;
        for (JsonNode t : tools) {
            if (t.path("name").asText().equals("read_file")) {
                readFile = t;
            }
        }
        assertTrue(readFile != null, tools.toString());
        assertEquals("LOCAL", readFile.path("placement").asText());
        assertTrue(readFile.path("annotations").path("readOnlyHint").asBoolean());
        assertEquals("brain", readFile.path("workers").get(0).asText());
        assertTrue(readFile.path("origin").asText().startsWith("efferent.tools.fs"), readFile.toString());
    }

    @Test
    void shellCommandsSeeNoSecretOfTheBrain() {
        // The test JVM's environment carries EFFERENT_TEST_SECRET (see this module's pom): the brain's own.
        assertEquals("leak", System.getenv("EFFERENT_TEST_SECRET"), "the pom sets a secret in the environment");
        startBrain(false, Map.of());
        JsonNode done = call("POST", "/api/v1/tasks?wait=30", "{\"tool\":\"run_shell\",\"params\":"
                + "{\"command\":\"env\"}}", 200);
        assertTrue(done.path("output").asText().contains("PATH="), done.toString());
        assertFalse(done.path("output").asText().contains("EFFERENT_"), done.path("output").asText());
    }

    @Test
    void observabilityEndpointsAnswerWithTheTokenAndLivenessWithout() {
        startBrain(false, Map.of());
        assertEquals(200, request("GET", "/observe/health/live", null, null).statusCode());
        assertEquals(401, request("GET", "/observe/health", null, null).statusCode());
        assertEquals(401, request("GET", "/observe/metrics", null, null).statusCode());
        assertEquals(200, request("GET", "/observe/health", null, TOKEN).statusCode());
        String metrics = request("GET", "/observe/metrics", null, TOKEN).body();
        assertTrue(metrics.contains("efferent_tasks_queued"), metrics);
        assertTrue(metrics.contains("efferent_workers_online"), metrics);
        assertTrue(metrics.contains("efferent_dispatch_latency"), metrics);
    }
}
