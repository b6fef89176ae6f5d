package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Progress belongs to the task: the REST API shows what a running task last reported. */
class TaskProgressTest extends BrainFixture {

    @Test
    void aRunningCommandsLastLineIsShownAsItsProgress() throws Exception {
        startBrain(false, Map.of());
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":"
                + "\"for i in 1 2 3 4 5 6 7 8; do echo line $i; sleep 0.5; done\"}}").path("id").asText();

        // A command's progress: how many lines so far, how long it has run, and its latest line.
        JsonNode running = awaitTask(id, 30, t -> t.path("progress").path("message").asText()
                .matches("\\d+ lines?, \\d+ s: line .*"));
        assertEquals("running", running.path("status").asText());
        assertTrue(running.path("progress").has("percent") && running.path("progress").has("at"), running.toString());
        JsonNode listed = call("GET", "/api/v1/tasks?status=running", null, 200);
        assertTrue(listed.toString().contains("\"progress\""), listed.toString());

        JsonNode done = awaitStatus(id, "completed", 30);
        assertTrue(done.path("progress").isMissingNode(), "a finished task shows its result, not progress: " + done);
    }
}
