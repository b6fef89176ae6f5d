package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.model.scripted.Received;
import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.model.scripted.Step;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent in hands mode, over REST, with real worker processes and a scripted model server: a call for an
 * offline machine parks the turn, which resumes when the task has run; the model's choice of machine is honoured.
 */
class AgentHandsTest extends BrainFixture {
    private ScriptedModelServer model;

    @BeforeEach
    void startModel() throws Exception {
        model = ScriptedModelServer.start();
    }

    @AfterEach
    void stopModel() {
        model.close();
    }

    private void startBrainWithModel() {
        startBrain(true, Map.of("model.base-url", model.openAiBaseUrl(), "model.name", "scripted"));
    }

    private JsonNode say(String conversation, String text) {
        return call("POST", "/api/v1/conversations/" + conversation + "/messages?wait=30",
                JSON.createObjectNode().put("text", text).toString(), 200);
    }

    private static String lastReply(JsonNode turn) {
        JsonNode replies = turn.path("replies");
        return replies.get(replies.size() - 1).path("text").asText();
    }

    @Test
    void aCallForAnOfflineMachineParksTheTurnAndTheAnswerComesWhenItHasRun() throws Exception {
        startBrainWithModel();
        Path root = dir.resolve("laptop-root");
        Files.createDirectories(root);
        Files.writeString(root.resolve("todo.txt"), "water the plants\n");
        model.then(Step.Reply.call("read_file", "{\"path\":\"todo.txt\"}"))
                .then(r -> Step.Reply.text("Your list says: " + r.lastMessageText().strip()));

        JsonNode parked = say("park1", "What is on my todo list?");
        String offline = lastReply(parked);
        assertTrue(offline.startsWith("Your machine is offline. I've queued this task ("), offline);
        String taskId = offline.substring(offline.indexOf('(') + 1, offline.indexOf(')'));
        assertEquals("queued", task(taskId).path("status").asText());
        assertEquals(1, model.received().size());

        startWorker("laptop", root, Map.of());
        awaitStatus(taskId, "completed", 30);
        model.next(Duration.ofSeconds(5)); // the call that asked for the file
        Received resumed = model.next(Duration.ofSeconds(30));
        assertEquals("water the plants", resumed.lastMessageText().strip(), "the model gets the task's result");
        JsonNode history = awaitMessage("park1", "Your list says: water the plants");
        assertTrue(history.toString().contains(taskId), "the history names the task: " + history);
    }

    @Test
    void theModelsChoiceOfMachineIsHonouredAndWithoutOneTheActiveMachineRunsIt() throws Exception {
        startBrainWithModel();
        startWorker("laptop", dir.resolve("laptop-root"), Map.of());
        startWorker("server", dir.resolve("server-root"), Map.of());
        awaitWorker("laptop", true, 30);
        awaitWorker("server", true, 30);

        model.then(Step.Reply.call("run_shell", "{\"command\":\"echo hi\",\"worker\":\"server\"}"),
                Step.Reply.text("done"));
        assertEquals("done", lastReply(say("pick1", "say hi on the server")));
        JsonNode offered = model.received().getFirst().body().path("tools");
        JsonNode shell = null;
        for (JsonNode t : offered) {
            if (t.path("function").path("name").asText().equals("run_shell")) {
                shell = t.path("function").path("parameters").path("properties").path("worker");
            }
        }
        assertTrue(shell != null && shell.path("enum").toString().contains("laptop")
                && shell.path("enum").toString().contains("server"), "two machines have it: " + offered);
        assertEquals("server", lastTask().path("runningOn").asText());

        call("POST", "/api/v1/conversations/pick1/messages?wait=30", "{\"text\":\"/worker laptop\"}", 200);
        model.then(Step.Reply.call("run_shell", "{\"command\":\"echo hi\"}"), Step.Reply.text("done again"));
        assertEquals("done again", lastReply(say("pick1", "say hi")));
        assertEquals("laptop", lastTask().path("runningOn").asText());
        assertTrue(model.received().getLast().body().path("messages").get(0).path("content").asText()
                .contains("- laptop ("), "the system prompt lists the machines");
    }

    @Test
    void restConversationsAreListedAndKeepTheirHistory() throws Exception {
        startBrainWithModel();
        model.then(Step.Reply.text("Hello!"));
        assertEquals("Hello!", lastReply(say("rest1", "hi")));
        JsonNode history = call("GET", "/api/v1/conversations/rest1/messages", null, 200);
        assertEquals("api:rest1", history.path("conversation").asText());
        assertEquals("hi", history.path("messages").get(0).path("text").asText());
        assertEquals("Hello!", history.path("messages").get(1).path("text").asText());
        assertTrue(call("GET", "/api/v1/conversations", null, 200).path("conversations").toString()
                .contains("api:rest1"));
        call("POST", "/api/v1/conversations/rest1/messages", "{\"text\":5}", 400);
        call("POST", "/api/v1/conversations/bad%20id/messages", "{\"text\":\"x\"}", 400);
        call("POST", "/api/v1/conversations/console:abc/messages", "{\"text\":\"x\"}", 400);
        assertEquals(401, request("POST", "/api/v1/conversations/rest1/messages", "{\"text\":\"x\"}", "wrong")
                .statusCode());
    }

    @Test
    void aCallApprovedWhileItsMachineIsOfflineRunsWhenItConnects() throws Exception {
        startBrainWithModel();
        Path root = dir.resolve("laptop-root");
        Files.createDirectories(root.resolve("build"));
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"))
                .then(r -> Step.Reply.text("Done: " + r.lastMessageText().strip()));
        JsonNode asked = say("appr1", "clean the build folder");
        JsonNode prompt = asked.path("replies").get(asked.path("replies").size() - 1);
        assertEquals("prompt", prompt.path("kind").asText(), asked.toString());
        String text = prompt.path("text").asText();
        String taskId = text.substring(text.indexOf("(task ") + 6, text.indexOf(")", text.indexOf("(task ")));
        assertEquals("awaiting_approval", task(taskId).path("status").asText());
        assertEquals("waiting for your approval", task(taskId).path("waiting").asText());
        assertEquals("asked", task(taskId).path("approval").get(0).path("event").asText());

        JsonNode approved = call("POST", "/api/v1/tasks/" + taskId + "/approve", "{}", 200);
        assertEquals("queued", approved.path("status").asText(), "approved while the machine is away");
        assertTrue(approved.path("message").asText().endsWith("It runs when the machine is back."),
                approved.toString());
        call("POST", "/api/v1/tasks/" + taskId + "/approve", "{}", 409);
        assertTrue(Files.exists(root.resolve("build")));

        startWorker("laptop", root, Map.of());
        awaitStatus(taskId, "completed", 30);
        assertTrue(Files.notExists(root.resolve("build")), "it ran when the machine came");
        awaitMessage("appr1", "Done:");
        JsonNode audit = task(taskId).path("approval");
        assertEquals("approved", audit.get(1).path("event").asText());
        assertEquals("api", audit.get(1).path("by").asText());
    }

    @Test
    void restDeniesAndShowsThePolicy() throws Exception {
        startBrain(true, Map.of("model.base-url", model.openAiBaseUrl(), "model.name", "scripted",
                "approvals.rules", "deny * on prod"));
        JsonNode policy = call("GET", "/api/v1/policy", null, 200);
        assertEquals("deny * on prod", policy.path("rules").get(0).asText());
        assertTrue(policy.path("text").asText().contains("shell commands run when they only read"));
        call("POST", "/api/v1/tasks/nope/approve", "{}", 404);
        call("POST", "/api/v1/tasks/nope/deny", "{\"reason\":5}", 400);
        call("POST", "/api/v1/tasks/nope/approve", "{\"always\":\"yes\"}", 400);
    }

    @Test
    void aMachinesOwnDenyRuleWinsOverTheBrainsAllow() throws Exception {
        startBrain(true, Map.of("model.base-url", model.openAiBaseUrl(), "model.name", "scripted",
                "approvals.rules", "allow run_shell"));
        startWorker("laptop", dir.resolve("laptop-root"), Map.of(), "--deny", "run_shell if command^echo");
        awaitWorker("laptop", true, 30);
        model.then(Step.Reply.call("run_shell", "{\"command\":\"echo hi\"}"))
                .then(r -> Step.Reply.text("Told: " + r.lastMessageText()));
        String said = lastReply(say("own1", "say hi"));
        assertTrue(said.startsWith("Told: Error: The task failed: refused by laptop's own rule 'deny run_shell if "
                + "command^echo'"), said);
        assertEquals("failed", lastTask().path("status").asText());
    }

    private JsonNode lastTask() {
        JsonNode tasks = call("GET", "/api/v1/tasks?limit=100", null, 200).path("tasks");
        return task(tasks.get(tasks.size() - 1).path("id").asText());
    }
}
