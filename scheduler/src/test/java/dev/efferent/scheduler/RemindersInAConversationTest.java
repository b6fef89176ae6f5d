package dev.efferent.scheduler;

import dev.efferent.agent.Agent;
import dev.efferent.agent.AgentSettings;
import dev.efferent.agent.Models;
import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.model.scripted.Step;
import dev.efferent.approvals.ApprovalSettings;
import dev.efferent.approvals.Approvals;
import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.conversations.ChatService;
import dev.efferent.conversations.ConversationEntry;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.tools.LocalTools;
import dev.efferent.plugin.Settings;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.Records;
import dev.efferent.queue.TaskQueue;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scheduler in a real conversation, on its own timer: what the person sees, and when. */
class RemindersInAConversationTest {
    private static final Conversation CHAT = new Conversation("recorder", "me");

    @TempDir
    Path root;
    private TaskQueue queue;
    private Router router;
    private Approvals approvals;
    private Scheduler scheduler;
    private Agent agent;
    private ChatService chat;
    private final Recorder channel = new Recorder();
    private ScriptedModelServer model;

    @BeforeEach
    void start() throws Exception {
        Files.writeString(root.resolve("notes.txt"), "buy milk\n");
        var config = ConfigLoader.load(Optional.empty(), Map.of("tools.roots", root.toString()), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(false), queue, Optional.of(LocalTools.open(config)),
                new ProtocolCodec(), Clock.systemUTC());
        Records records = Records.inMemory();
        approvals = new Approvals(router, ApprovalSettings.from(Settings.empty()), records, Clock.systemUTC());
        scheduler = new Scheduler(router, records, SchedulerSettings.from(Settings.of(Map.of("zone", "UTC"))),
                Clock.systemUTC());
        model = ScriptedModelServer.start();
        Map<String, String> m = Map.of("base-url", model.openAiBaseUrl(), "name", "scripted");
        agent = new Agent(router, Optional.of(Models.providers().select("openai").open(Settings.of(m))),
                AgentSettings.defaults(), approvals, records, Clock.systemUTC(), List.of(scheduler));
        chat = new ChatService(router, agent, 2_000, Duration.ofMillis(100), Clock.systemUTC());
        chat.add(channel);
        chat.start();
    }

    @AfterEach
    void stop() {
        scheduler.close();
        chat.close();
        agent.close();
        approvals.close();
        router.close();
        queue.close();
        model.close();
    }

    private String say(String text) throws Exception {
        List<ConversationEntry> said = chat.handle(new IncomingMessage(CHAT, "me", text)).get(10, TimeUnit.SECONDS);
        return said.getLast().text();
    }

    private String awaitSent(String containing, Duration within) throws InterruptedException {
        long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            for (String s : channel.sent) {
                if (s.contains(containing)) {
                    return s;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("nothing with '" + containing + "' was sent within " + within + ": " + channel.sent);
    }

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

    /** A channel that keeps what it is asked to send. */
    private static final class Recorder implements Channel {
        final List<String> sent = new CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "recorder";
        }

        @Override
        public void start(Inbox inbox) {
        }

        @Override
        public void send(Conversation conversation, OutgoingMessage message) {
            sent.add(message.text());
        }
    }
}
