package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.options.WaitForSelectorState;
import dev.efferent.model.scripted.Received;
import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.model.scripted.Step;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The assistant's mind through the real processes: the console in Chromium, and a parked turn across a restart. */
class AgentTurnsTest extends SystemFixture {
    private static final double WAIT_MS = 60_000;
    private ScriptedModelServer model;

    @BeforeEach
    void startModel() throws Exception {
        model = ScriptedModelServer.start();
    }

    @AfterEach
    void stopModel() {
        model.close();
    }

    private Map<String, String> withModel() {
        return Map.of("EFFERENT_MODEL_BASE__URL", model.openAiBaseUrl(), "EFFERENT_MODEL_NAME", "scripted");
    }

    @Test
    void freeTextInTheConsoleBecomesAToolCallOnTheWorkerAndAStreamedAnswer() throws Exception {
        Launched brain = brain("brain", withModel());
        Path root = dir.resolve("laptop");
        Files.createDirectories(root);
        Files.writeString(root.resolve("notes.txt"), "buy milk\n");
        worker("laptop", root, List.of(brain));
        awaitWorkerOnline(brain, "laptop", 60);
        model.then(Step.Reply.call("read_file", "{\"path\":\"notes.txt\"}"))
                .then(r -> Step.Reply.text("Your notes say: " + r.lastMessageText().strip()).slowly(Duration.ofMillis(20)));

        try (Browser chromium = new Browser();
             BrowserContext context = chromium.browser.newContext()) {
            Page page = context.newPage();
            page.navigate("http://127.0.0.1:" + brain.port() + "/");
            page.locator("#token").fill(TOKEN);
            page.locator("#login-form button").click();
            page.locator("#conn[data-state=open]").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));

            page.locator("[data-testid=chat-input]").fill("what is in my notes?");
            page.locator("[data-testid=send]").click();
            // The console draws the ✅ as an icon of its own.
            waitForText(page, ".msg.result.ok", "read_file on laptop");
            assertTrue(page.locator(".msg.result.ok svg.icon.ok").count() > 0, "the success drawn as an icon");
            waitForText(page, ".msg.bot", "Your notes say: buy milk");

            // The assistant asks for a hand: a banner with Done, and the turn goes on once it is pressed.
            model.then(Step.Reply.call("ask_human", "{\"reason\":\"log in to the router page\"}"))
                    .then(r -> Step.Reply.text("Thanks: " + r.lastMessageText()));
            page.locator("[data-testid=chat-input]").fill("set up the router");
            page.locator("[data-testid=send]").click();
            page.locator("#banner:not([hidden])").waitFor(new Locator.WaitForOptions().setTimeout(WAIT_MS));
            assertTrue(page.locator("#banner").textContent().contains("log in to the router page"));
            page.locator("#banner button.choice").click();
            waitForText(page, ".msg.bot", "Thanks: The user says it is done.");
            assertTrue(page.locator("#banner").isHidden());
        }
        Received second = model.received().get(1);
        assertEquals("buy milk", second.lastMessageText().strip(), "the model read the file's content");
    }

    @Test
    void aParkedTurnResumesAfterTheBrainRestartsWhenTheMachineIsBack() throws Exception {
        Launched first = brain("brain-1", withModel());
        Path root = dir.resolve("laptop");
        Files.createDirectories(root);
        Files.writeString(root.resolve("todo.txt"), "water the plants\n");
        model.then(Step.Reply.call("read_file", "{\"path\":\"todo.txt\"}"))
                .then(r -> Step.Reply.text("Your list says: " + r.lastMessageText().strip()));

        JsonNode parked = call(first, "POST", "/api/v1/conversations/durable/messages?wait=30",
                "{\"text\":\"what is on my todo list?\"}", 200);
        String offline = parked.path("replies").get(parked.path("replies").size() - 1).path("text").asText();
        assertTrue(offline.startsWith("Your machine is offline. I've queued this task ("), parked.toString());
        String taskId = offline.substring(offline.indexOf('(') + 1, offline.indexOf(')'));
        first.stop();

        Launched second = brain("brain-2", withModel());
        worker("laptop", root, List.of(second));
        awaitStatus(second, taskId, "completed", 60);
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode history = null;
        while (System.nanoTime() < end) {
            history = call(second, "GET", "/api/v1/conversations/durable/messages", null, 200);
            if (history.toString().contains("Your list says: water the plants")) {
                break;
            }
            Thread.sleep(200);
        }
        assertTrue(history.toString().contains("Your list says: water the plants"), "the turn resumed: " + history
                + "\n--- brain-2 ---\n" + second.output());
        assertEquals(2, model.received().size());
        assertTrue(second.output().contains("resumes: its tasks finished"), second.output());
    }

    @Test
    void aPendingApprovalOutlivesTheBrainAndIsAnsweredAfterTheRestart() throws Exception {
        Launched first = brain("brain-1", withModel());
        Path root = dir.resolve("laptop");
        Files.createDirectories(root.resolve("build"));
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"))
                .then(r -> Step.Reply.text("Cleaned: " + r.lastMessageText().strip()));
        JsonNode asked = call(first, "POST", "/api/v1/conversations/held/messages?wait=30",
                "{\"text\":\"clean the build folder\"}", 200);
        String prompt = asked.path("replies").get(asked.path("replies").size() - 1).path("text").asText();
        String taskId = prompt.substring(prompt.indexOf("(task ") + 6, prompt.indexOf(")", prompt.indexOf("(task ")));
        first.stop();

        Launched second = brain("brain-2", withModel());
        assertEquals("awaiting_approval", call(second, "GET", "/api/v1/tasks/" + taskId, null, 200)
                .path("status").asText(), "the question outlived the brain");
        call(second, "POST", "/api/v1/tasks/" + taskId + "/approve", "{}", 200);
        worker("laptop", root, List.of(second));
        awaitStatus(second, taskId, "completed", 60);
        assertTrue(Files.notExists(root.resolve("build")));
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode history = null;
        while (System.nanoTime() < end) {
            history = call(second, "GET", "/api/v1/conversations/held/messages", null, 200);
            if (history.toString().contains("Cleaned:")) {
                break;
            }
            Thread.sleep(200);
        }
        assertTrue(history.toString().contains("Cleaned:"), "the turn resumed with the result: " + history);
    }

    private static void waitForText(Page page, String selector, String text) {
        page.locator(selector).filter(new Locator.FilterOptions().setHasText(text)).first()
                .waitFor(new Locator.WaitForOptions().setState(WaitForSelectorState.VISIBLE).setTimeout(WAIT_MS));
    }
}
