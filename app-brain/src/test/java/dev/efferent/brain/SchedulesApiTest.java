package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code /api/v1/schedules}: made, listed, fired and removed over HTTP; refused without the token or sense. */
class SchedulesApiTest extends BrainFixture {

    @Test
    void aScheduleMadeOverRestRunsItsToolCallAndIsListedAndRemoved() throws Exception {
        startBrain(false, Map.of());
        Files.writeString(brainRoot().resolve("notes.txt"), "buy milk\n");
        JsonNode made = call("POST", "/api/v1/schedules", "{\"every\": \"1s\", \"tool\": \"read_file\", \"params\": "
                + "{\"path\": \"notes.txt\"}, \"conversation\": \"ops\", \"maxRuns\": 2}", 201);
        String id = made.path("id").asText();
        assertTrue(id.startsWith("s-"), made.toString());
        assertEquals("api:ops", made.path("conversation").asText());
        assertEquals("read_file", made.path("action").path("tool").asText());
        assertTrue(made.path("description").asText().startsWith("every 1 second, run read_file"), made.toString());
        assertEquals(id, call("GET", "/api/v1/schedules?conversation=ops", null, 200).path("schedules").path(0)
                .path("id").asText());
        assertEquals(id, call("GET", "/api/v1/schedules/" + id, null, 200).path("id").asText());

        // Each fire is a task of the schedule's conversation, whose result is posted there.
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        JsonNode history = null;
        while (System.nanoTime() < end) {
            history = call("GET", "/api/v1/conversations/ops/messages", null, 200).path("messages");
            if (history.toString().split("buy milk", -1).length - 1 >= 2) {
                break;
            }
            Thread.sleep(100);
        }
        assertEquals(2, history.toString().split("buy milk", -1).length - 1, "two runs, then it ends: " + history);
        assertEquals(404, call("GET", "/api/v1/schedules/" + id, null, 404).path("status").asInt(),
                "after maxRuns it is gone");

        String reminder = call("POST", "/api/v1/schedules", "{\"in\": \"1h\", \"remind\": \"stand up\"}", 201)
                .path("id").asText();
        assertEquals("api:schedules", call("GET", "/api/v1/schedules/" + reminder, null, 200).path("conversation")
                .asText());
        assertTrue(call("DELETE", "/api/v1/schedules/" + reminder, null, 200).path("removed").asBoolean());
        assertEquals("no schedule with id '" + reminder + "'", call("DELETE", "/api/v1/schedules/" + reminder, null,
                404).path("error").asText());
        assertEquals(0, call("GET", "/api/v1/schedules", null, 200).path("schedules").size());
    }

    @Test
    void aWrongOrUnauthenticatedRequestIsRefusedWithTheReason() {
        startBrain(false, Map.of());
        assertEquals(401, request("GET", "/api/v1/schedules", null, null).statusCode());
        assertEquals(401, request("POST", "/api/v1/schedules", "{\"in\": \"1m\", \"remind\": \"x\"}", "wrong")
                .statusCode());
        assertEquals(401, request("DELETE", "/api/v1/schedules/s-x", null, null).statusCode());
        assertTrue(call("POST", "/api/v1/schedules", "{nope", 400).path("error").asText()
                .startsWith("request body is not valid JSON"));
        assertTrue(call("POST", "/api/v1/schedules", "{\"remind\": \"x\"}", 400).path("error").asText()
                .startsWith("say when with exactly one of in"));
        assertTrue(call("POST", "/api/v1/schedules", "{\"every\": \"100ms\", \"remind\": \"x\"}", 400)
                .path("error").asText().startsWith("an interval must be at least 1 second"));
        assertTrue(call("POST", "/api/v1/schedules", "{\"cron\": \"0 25 * * *\", \"remind\": \"x\"}", 400)
                .path("error").asText().startsWith("cron hour '25'"));
        assertTrue(call("POST", "/api/v1/schedules", "{\"in\": \"1m\", \"tool\": \"teleport\"}", 400)
                .path("error").asText().startsWith("no machine has a tool named 'teleport'"));
        assertTrue(call("POST", "/api/v1/schedules", "{\"in\": \"1m\", \"remind\": \"x\", \"conversation\": 5}", 400)
                .path("error").asText().startsWith("field 'conversation' must be a string"));
        assertTrue(call("GET", "/api/v1/schedules?conversation=bad:", null, 400).path("error").asText()
                .contains("is not a conversation"));
        assertFalse(call("GET", "/api/v1/schedules", null, 200).path("schedules").elements().hasNext());
    }
}
