package dev.efferent.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.model.scripted.Step;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scheduler in a real conversation, on its own timer: what the person sees, and when. */
class RemindersInAConversationTest extends ConversationFixture {

    @Test
    void aReminderIsPostedInTheConversationWhenItIsDue() throws Exception {
        long asked = System.nanoTime();
        String reply = say("/remind 2s hello");
        assertTrue(reply.startsWith("I will remind you at "), reply);
        assertEquals("⏰ hello", awaitSent("hello", Duration.ofSeconds(10)).replace(reply, "").strip());
        long tookMs = (System.nanoTime() - asked) / 1_000_000;
        // Not before it is due; how soon after is the benchmarks' business, not this test's.
        assertTrue(tookMs >= 1_900, "posted after " + tookMs + " ms");
        assertTrue(say("/schedules").startsWith("Nothing is scheduled here"), "a one-shot reminder ends");
    }

    @Test
    void aScheduledCommandRunsAsATaskAndItsResultReachesTheConversation() throws Exception {
        String reply = say("/every 1s /read notes.txt");
        assertTrue(reply.startsWith("Scheduled s-"), reply);
        awaitSent("buy milk", Duration.ofSeconds(10));
        String id = reply.substring("Scheduled ".length(), reply.indexOf(':'));
        assertTrue(say("/unschedule " + id).startsWith("Removed schedule " + id));
        assertTrue(say("/help").contains("/remind <10m | at 09:00 | at 2026-12-01T09:00> <text>"),
                "the scheduler's commands are in /help");
    }

    @Test
    void theModelSetsAReminderWithTheScheduleToolAndItIsPostedWithoutIt() throws Exception {
        model.then(Step.Reply.call("schedule", "{\"in\": \"2s\", \"remind\": \"stretch your legs\"}"))
                .then(r -> Step.Reply.text("Done: " + r.lastMessageText()));
        String reply = say("remind me in 2 seconds to stretch my legs");
        assertTrue(reply.startsWith("Done: Scheduled s-"), reply);
        JsonNode tools = model.received().getFirst().body().path("tools");
        assertTrue(tools.toString().contains("\"name\":\"schedule\""), "offered to the model: " + tools);
        assertEquals("⏰ stretch your legs", awaitSent("⏰", Duration.ofSeconds(10)));
        assertEquals(2, model.received().size(), "the reminder itself needs no model call");
    }
}
