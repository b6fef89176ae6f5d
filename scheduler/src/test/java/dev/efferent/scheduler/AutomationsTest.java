package dev.efferent.scheduler;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.model.scripted.Step;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tool calls recorded in a conversation and replayed as a tool, with other values, held where marked. */
class AutomationsTest extends ConversationFixture {

    /** Runs {@code command} and waits for the task it started to finish: its checkpoint is sent. */
    private void runAndWait(String command, String checkpoint) throws Exception {
        int before = channel.sent.size();
        say(command);
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        // Copied before it is read: a view of a list that grows meanwhile (the conversation goes on) would throw.
        while (System.nanoTime() < end && sentSince(before).stream().noneMatch(s -> s.contains(checkpoint))) {
            Thread.sleep(20);
        }
        assertTrue(sentSince(before).stream().anyMatch(s -> s.contains(checkpoint)),
                "'" + checkpoint + "' after " + command + ": " + channel.sent);
    }

    private List<String> sentSince(int before) {
        List<String> sent = List.copyOf(channel.sent);
        return sent.subList(before, sent.size());
    }

    /** The task a question names: {@code … (task k3x9m2qa7bfd).} */
    private static String taskIn(String question) {
        int at = question.indexOf("(task ") + 6;
        return question.substring(at, question.indexOf(')', at));
    }

    private void recordWriteReadShell() throws Exception {
        assertTrue(say("/record start greet").startsWith("Recording greet:"));
        runAndWait("/run write_file {\"path\": \"ann.txt\", \"content\": \"hello ann\"}", "Complete");
        runAndWait("/read ann.txt", "hello ann");
        runAndWait("/shell cat ann.txt && echo ' from the shell'", "exit code: 0");
        String saved = say("/record stop name=ann");
        assertTrue(saved.startsWith("Saved greet as the tool automation_greet, variables name:"), saved);
        assertTrue(saved.contains("1. write_file {\"path\":\"{{name}}.txt\",\"content\":\"hello {{name}}\"}"), saved);
        assertTrue(saved.contains("2. read_file {\"path\":\"{{name}}.txt\"}"), saved);
        assertTrue(saved.contains("3. run_shell {\"command\":\"cat {{name}}.txt && echo ' from the shell'\"}"),
                saved + "\nafter " + channel.sent);
    }

    @Test
    void threeRecordedCallsReplayWithAnotherValue() throws Exception {
        recordWriteReadShell();
        String started = say("/run automation_greet {\"name\": \"bob\"}");
        assertTrue(started.startsWith("Started automation greet (run r-"), started);
        String done = awaitSent("Automation greet done", Duration.ofSeconds(20));
        assertTrue(done.contains("3 steps ran. The last one said:") && done.contains("hello bob from the shell"), done);
        assertEquals("hello bob", Files.readString(root.resolve("bob.txt")));
        assertTrue(say("/automations").contains("automation_greet {\"name\":\"…\"}  — 3 steps"));
    }

    @Test
    void aStepMarkedForApprovalHoldsTheRunUntilAllowed() throws Exception {
        recordWriteReadShell();
        assertEquals("Step 3 of greet now waits for your yes each time (approval: required).",
                say("/automation ask greet 3"));
        say("/run automation_greet {\"name\": \"cy\"}");
        String asked = awaitSent("Allow run_shell", Duration.ofSeconds(20));
        assertTrue(asked.contains("It asks because: this step is marked approval: required"), asked);
        assertTrue(Files.exists(root.resolve("cy.txt")), "the steps before it ran");
        Thread.sleep(300);
        assertTrue(channel.sent.stream().noneMatch(s -> s.contains("Automation greet done")), "held, not done");
        String id = taskIn(asked);
        say("/approve " + id);
        String done = awaitSent("Automation greet done", Duration.ofSeconds(20));
        assertTrue(done.contains("hello cy from the shell"), done);
    }

    @Test
    void aFailingOrDeniedStepStopsTheRunSayingWhichAndWhy() throws Exception {
        recordWriteReadShell();
        say("/run automation_greet {\"name\": \"../outside\"}");
        String stopped = awaitSent("Automation greet (run", Duration.ofSeconds(20));
        assertTrue(stopped.contains("stopped: step 1 of 3 (write_file)"), stopped);

        say("/automation ask greet 2");
        say("/run automation_greet {\"name\": \"dan\"}");
        String asked = awaitSent("Allow read_file", Duration.ofSeconds(20));
        String id = taskIn(asked);
        say("/deny " + id + " not today");
        String denied = awaitSent("stopped: step 2 of 3 (read_file)", Duration.ofSeconds(20));
        assertTrue(denied.contains("did not run"), denied);
    }

    @Test
    void stopEndsARunHeldForApprovalAndCancelsItsStep() throws Exception {
        recordWriteReadShell();
        say("/automation ask greet 2");
        String started = say("/run automation_greet {\"name\": \"eve\"}");
        String run = started.substring(started.indexOf("(run ") + 5, started.indexOf(')'));
        String asked = awaitSent("Allow read_file", Duration.ofSeconds(20));
        String id = taskIn(asked);
        assertEquals("Stopped 1 automation run.", say("/stop"));
        assertEquals("cancelled", router.task(id).orElseThrow().status().name().toLowerCase(Locale.ROOT));
        assertEquals("There is no run " + run + " going on.", say("/automation stop " + run));
        Thread.sleep(300);
        assertTrue(channel.sent.stream().noneMatch(s -> s.contains("stopped: step 2")), "no report of a run "
                + "stopped on purpose: " + channel.sent);
        assertEquals("Step 2 of greet runs as the approval policy says again.", say("/automation unask greet 2"));
        assertTrue(say("/record start greet").startsWith("Not done: an automation named greet exists"));
    }

    @Test
    void anAutomationForSomePagesRefusesAStepThatAVariableSendsElsewhere() throws Exception {
        // Browser steps keep their arguments (selectors, URLs) as recorded; fetch_page stands for browser_navigate.
        Automation shop = new Automation("shop", "", Optional.of("https://shop.example/*"), List.of(
                new Automation.Step("browser_navigate", (ObjectNode)
                        new ObjectMapper().readTree("{\"url\": \"{{page}}\"}"), false)),
                Instant.now());
        assertTrue(shop.outsideScope(shop.params(0, Map.of("page", "https://shop.example/cart"))).isEmpty());
        assertEquals(Optional.of("its URL https://evil.example/?https://shop.example/ is outside the "
                + "automation's pages, https://shop.example/*"), shop.outsideScope(shop.params(0,
                Map.of("page", "https://evil.example/?https://shop.example/"))));
        assertTrue(Automation.matches("https://*.example/*", "https://a.example/x"));
        assertFalse(Automation.matches("https://shop.example/*", "https://shop.example.evil/"));
    }

    @Test
    void wrongCommandsAndCallsSayWhatToDo() throws Exception {
        assertTrue(say("/record stop").startsWith("Not done: nothing is being recorded here"));
        assertTrue(say("/record start Bad Name").startsWith("Not done: name it"));
        assertTrue(say("/record start ../x").startsWith("Not done: an automation's name is up to 40"));
        say("/record start empty");
        assertTrue(say("/record stop").startsWith("Nothing recorded yet"));
        runAndWait("/read notes.txt", "buy milk");
        assertTrue(say("/record stop who=ann").startsWith("Not done: the value of who appears in none of the 1 calls"));
        assertTrue(say("/record stop who").startsWith("Not done: mark a value as variable=value"));
        assertTrue(say("/record stop").startsWith("Saved empty as the tool automation_empty:"));
        assertEquals("Not done: there is no automation behind automation_nope; /automations lists them.",
                say("/run automation_nope {}"));
        assertTrue(say("/automation show nope").startsWith("Not done: there is no automation named 'nope'"));
        assertTrue(say("/automation ask empty 7").startsWith("Not done: give a step from 1 to 1"));
        assertEquals("Deleted empty.", say("/automation delete empty"));
        assertTrue(say("/automations").startsWith("No automations yet."));
    }

    @Test
    void theModelSavesItsLastCallsAndReplaysThemAsATool() throws Exception {
        Files.writeString(root.resolve("ann.txt"), "ann's notes\n");
        Files.writeString(root.resolve("bob.txt"), "bob's notes\n");
        model.then(Step.Reply.call("read_file", "{\"path\": \"ann.txt\"}"))
                .then(Step.Reply.call("save_automation", "{\"name\": \"notes\", \"last\": 1, \"variables\": "
                        + "{\"who\": \"ann\"}, \"description\": \"Reads someone's notes\"}"))
                .then(r -> Step.Reply.text("Saved: " + r.lastMessageText()));
        String saved = say("read ann's notes and save that as an automation");
        assertTrue(saved.startsWith("Saved: Saved notes as the tool automation_notes, variables who:"), saved);

        model.then(Step.Reply.call("automation_notes", "{\"who\": \"bob\"}"))
                .then(r -> Step.Reply.text("Running: " + r.lastMessageText()));
        String running = say("now bob's");
        assertTrue(running.startsWith("Running: Started automation notes"), running);
        assertTrue(model.received().get(3).body().path("tools").toString().contains("\"name\":\"automation_notes\""),
                "offered as a tool with its variables: " + model.received().get(3).body().path("tools"));
        assertTrue(awaitSent("Automation notes done", Duration.ofSeconds(20)).contains("bob's notes"));
    }
}
