package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Time across a restart, over PostgreSQL: fires that fell while the brain was down follow their schedule's missed-run
 * policy; an automation whose step waits for a yes goes on from that step after the restart, once allowed.
 */
class TimeAcrossRestartTest extends SystemFixture {

    @Test
    void aFireThatFellWhileTheBrainWasDownRunsOnceWithRunOnceAndNotAtAllWithSkip() throws Exception {
        // A fire more than 1 s late fell while no brain ran.
        Map<String, String> env = Map.of("EFFERENT_SCHEDULER_MISSED__AFTER", "1s");
        Launched first = brain("brain-1", env);
        call(first, "POST", "/api/v1/schedules", "{\"in\": \"3s\", \"remind\": \"run once\", \"conversation\": "
                + "\"down\"}", 201);
        call(first, "POST", "/api/v1/schedules", "{\"in\": \"3s\", \"remind\": \"skipped\", \"missed\": \"skip\", "
                + "\"conversation\": \"down\"}", 201);
        first.stop();
        Thread.sleep(5_000);
        Launched second = brain("brain-2", env);
        awaitMessage(second, "down", "⏰ run once");
        // Both were due at start-up: had the skipped one run, it would be there by now.
        Thread.sleep(2_000);
        JsonNode history = call(second, "GET", "/api/v1/conversations/down/messages", null, 200).path("messages");
        assertEquals(1, history.toString().split("run once", -1).length - 1, history.toString());
        assertTrue(!history.toString().contains("skipped"), history.toString());
        assertEquals(0, call(second, "GET", "/api/v1/schedules", null, 200).path("schedules").size(),
                "both one-shot schedules ended");
    }

    @Test
    void aRunHeldForApprovalGoesOnFromThatStepAfterTheBrainRestarts() throws Exception {
        Launched first = brain("brain-1", Map.of("EFFERENT_APPROVALS_RULES", "allow write_file"));
        Path root = dir.resolve("laptop");
        Launched laptop = worker("laptop", root, List.of(first));
        awaitWorkerOnline(first, "laptop", 60);

        message(first, "/record start greet");
        String wrote = message(first, "/run write_file {\"path\": \"ann.txt\", \"content\": \"hello ann\"}");
        awaitStatus(first, taskId(wrote), "completed", 60);
        String read = message(first, "/read ann.txt");
        awaitStatus(first, taskId(read), "completed", 60);
        assertTrue(message(first, "/record stop name=ann").startsWith("Saved greet as the tool automation_greet"));
        message(first, "/automation ask greet 2");
        assertTrue(message(first, "/run automation_greet {\"name\": \"bob\"}").startsWith("Started automation greet"));
        String asked = awaitMessage(first, "auto", "Allow read_file");
        String held = asked.substring(asked.indexOf("(task ") + 6, asked.indexOf(")", asked.indexOf("(task ")));
        assertEquals("hello bob", Files.readString(root.resolve("bob.txt")), "step 1 ran before the question");
        first.stop();
        laptop.stop();

        Launched second = brain("brain-2", Map.of("EFFERENT_APPROVALS_RULES", "allow write_file"));
        assertEquals("awaiting_approval", call(second, "GET", "/api/v1/tasks/" + held, null, 200)
                .path("status").asText(), "the held step outlived the brain");
        call(second, "POST", "/api/v1/tasks/" + held + "/approve", "{}", 200);
        worker("laptop", root, List.of(second));
        String done = awaitMessage(second, "auto", "Automation greet done");
        assertTrue(done.contains("2 steps ran. The last one said:\nhello bob"), done);
        assertTrue(second.output().contains("goes on at step 2"), "the run was picked up after the restart");
    }

    /** Says {@code text} in the REST conversation {@code auto}; the last reply. */
    private String message(Launched brain, String text) throws Exception {
        JsonNode turn = call(brain, "POST", "/api/v1/conversations/auto/messages?wait=30",
                JSON.createObjectNode().put("text", text).toString(), 200);
        JsonNode replies = turn.path("replies");
        return replies.get(replies.size() - 1).path("text").asText();
    }

    private static String taskId(String reply) {
        return reply.substring(reply.lastIndexOf('(') + 1, reply.lastIndexOf(')'));
    }

    private String awaitMessage(Launched brain, String conversation, String text) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode history = null;
        while (System.nanoTime() < end) {
            history = call(brain, "GET", "/api/v1/conversations/" + conversation + "/messages", null, 200)
                    .path("messages");
            for (JsonNode m : history) {
                if (m.path("text").asText().contains(text)) {
                    return m.path("text").asText();
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("'" + text + "' never appeared: " + history);
    }
}
