package dev.efferent.scheduler;

import dev.efferent.agent.Agent;
import dev.efferent.agent.AgentSettings;
import dev.efferent.agent.Models;
import dev.efferent.approvals.ApprovalSettings;
import dev.efferent.approvals.Approvals;
import dev.efferent.calls.Gateway;
import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.conversations.ChatService;
import dev.efferent.conversations.ConversationEntry;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.tools.LocalTools;
import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.plugin.Settings;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.TaskQueue;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import dev.efferent.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A brain's conversation parts, in process: a router with the file and shell tools, approvals, the scheduler and
 * automations, an agent on a scripted model server, and a channel that records what it is asked to send.
 */
abstract class ConversationFixture {
    static final Conversation CHAT = new Conversation("recorder", "me");

    @TempDir
    Path root;
    TaskQueue queue;
    Router router;
    Approvals approvals;
    Scheduler scheduler;
    Automations automations;
    Agent agent;
    ChatService chat;
    final Recorder channel = new Recorder();
    ScriptedModelServer model;

    @BeforeEach
    void startParts() throws Exception {
        Files.writeString(root.resolve("notes.txt"), "buy milk\n");
        var config = ConfigLoader.load(Map.of("tools.roots", root.toString()), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(false), queue, Stores.inMemory(),
                LocalTools.open(config),
                new ProtocolCodec(), Clock.systemUTC());
        Store records = Stores.inMemory();
        // Writing files and running commands would ask by default: these tests allow them, unless a step asks.
        approvals = new Approvals(router, ApprovalSettings.from(Settings.of(Map.of("rules",
                "allow write_file, allow run_shell"))), records, Clock.systemUTC());
        scheduler = new Scheduler(new Gateway(router, approvals), records, SchedulerSettings.from(Settings.of(Map.of("zone", "UTC"))),
                Clock.systemUTC());
        automations = new Automations(router, records, Clock.systemUTC());
        model = ScriptedModelServer.start();
        Map<String, String> m = Map.of("base-url", model.openAiBaseUrl(), "name", "scripted");
        agent = new Agent(router, Models.providers().select("openai").open(Settings.of(m)),
                AgentSettings.defaults(), approvals, records, Clock.systemUTC(),
                List.of(new ScheduleCommands(scheduler), automations));
        chat = new ChatService(new Gateway(router, approvals), agent, 2_000, Duration.ofMillis(100), Clock.systemUTC());
        router.addListener(chat);
        chat.add(channel);
        chat.start();
    }

    @AfterEach
    void stopParts() {
        scheduler.close();
        automations.close();
        chat.close();
        agent.close();
        approvals.close();
        router.close();
        queue.close();
        model.close();
    }

    /** Says {@code text} in the conversation; the last reply. */
    String say(String text) throws Exception {
        List<ConversationEntry> said = chat.handle(new IncomingMessage(CHAT, "me", text)).get(10, TimeUnit.SECONDS);
        return said.getLast().text();
    }

    /** The first message sent that contains {@code containing}, waiting for it up to {@code within}. */
    String awaitSent(String containing, Duration within) throws InterruptedException {
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

    /** A channel that keeps what it is asked to send. */
    static final class Recorder implements Channel {
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
