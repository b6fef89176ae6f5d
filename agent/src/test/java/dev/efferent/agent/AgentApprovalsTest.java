package dev.efferent.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
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
import dev.efferent.model.scripted.Step;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import dev.efferent.store.Store;
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
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Risky calls of the agent wait for a person's yes: allow once, allow always, deny, no answer, no one to ask. */
class AgentApprovalsTest {
    private static final Conversation CHAT = new Conversation("test", "1");
    @TempDir
    Path root;
    private ScriptedModelServer model;
    private TaskQueue queue;
    private Router router;
    private Approvals approvals;
    private Agent agent;
    private ChatService chat;
    private final BlockingQueue<OutgoingMessage> shown = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> elsewhere = new LinkedBlockingQueue<>();

    @BeforeEach
    void start() throws Exception {
        model = ScriptedModelServer.start();
        Files.createDirectories(root.resolve("build"));
    }

    private void approvalsAndAgent(Map<String, String> agentSettings) {
        startBrain(Map.of(), true, agentSettings);
    }

    private void startBrain(Map<String, String> approvalSettings, boolean withChannel) {
        startBrain(approvalSettings, withChannel, Map.of());
    }

    private void startBrain(Map<String, String> approvalSettings, boolean withChannel, Map<String, String> agentSettings) {
        var config = ConfigLoader.load(Map.of("tools.roots", root.toString()), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        var tools = LocalTools.open(config);
        router = Router.start(RouterSettings.defaults().withHands(false), queue, Stores.inMemory(), tools,
                new ProtocolCodec(), Clock.systemUTC());
        Map<String, String> m = Map.of("base-url", model.openAiBaseUrl(), "name", "scripted");
        Store records = Stores.inMemory();
        approvals = new Approvals(router, ApprovalSettings.from(key -> Optional.ofNullable(approvalSettings.get(key))),
                records, Clock.systemUTC(), (tool, params) -> tools.risk(tool,
                (ObjectNode) params));
        agent = new Agent(router, Models.providers().select("openai").open(key -> Optional.ofNullable(m.get(key))),
                AgentSettings.from(key -> Optional.ofNullable(agentSettings.get(key))), approvals, records,
                Clock.systemUTC());
        chat = new ChatService(new Gateway(router, approvals), agent, 2_000, Duration.ofMillis(100), Clock.systemUTC());
        router.addListener(chat);
        if (withChannel) {
            chat.add(new Channel() {
                @Override
                public String name() {
                    return "test";
                }

                @Override
                public void start(Inbox inbox) {
                }

                @Override
                public void send(Conversation conversation, OutgoingMessage message) {
                    shown.add(message);
                }
            });
            chat.add(new Channel() {
                @Override
                public String name() {
                    return "other";
                }

                @Override
                public void start(Inbox inbox) {
                }

                @Override
                public void send(Conversation conversation, OutgoingMessage message) {
                    elsewhere.add(conversation.key() + " " + message.text());
                }
            });
        }
    }

    @AfterEach
    void stop() {
        if (chat != null) {
            chat.close();
            agent.close();
            approvals.close();
            router.close();
            queue.close();
        }
        model.close();
    }

    private List<ConversationEntry> say(Conversation c, String text) throws Exception {
        return chat.handle(new IncomingMessage(c, "me", text)).get(30, TimeUnit.SECONDS);
    }

    private static String last(List<ConversationEntry> said) {
        return said.getLast().text();
    }

    /** The next prompt the channel showed. */
    private OutgoingMessage.Prompt prompt() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < end) {
            OutgoingMessage m = shown.poll(100, TimeUnit.MILLISECONDS);
            if (m instanceof OutgoingMessage.Prompt p) {
                return p;
            }
        }
        throw new AssertionError("no prompt was shown");
    }

    private void awaitRequests(int n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (model.received().size() < n && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertEquals(n, model.received().size());
    }

    @Test
    void allowOnceRunsTheCallAndTheSameCallAsksAgainUntilAllowedAlways() throws Exception {
        startBrain(Map.of(), true);
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"))
                .then(r -> Step.Reply.text("deleted: " + r.lastMessageText().strip()));
        say(CHAT, "delete the build folder");
        OutgoingMessage.Prompt asked = prompt();
        assertTrue(asked.question().startsWith("Allow run_shell on brain? Command: rm -rf build\nIt asks because: shell "
                + "commands ask"), asked.question());
        assertEquals(List.of("/approve " + asked.promptId() + " once", "/approve " + asked.promptId() + " always",
                "/deny " + asked.promptId()), asked.choices().stream().map(OutgoingMessage.Prompt.Choice::command).toList());
        assertEquals(TaskStatus.AWAITING_APPROVAL, router.task(asked.promptId()).orElseThrow().status());
        assertFalse(Files.notExists(root.resolve("build")), "nothing ran before the yes");

        assertTrue(last(say(CHAT, "/approve " + asked.promptId() + " once")).startsWith("Allowed run_shell ("));
        awaitRequests(2);
        assertTrue(last(say(CHAT, "/deny " + asked.promptId())).startsWith("Task " + asked.promptId()
                + " is not waiting for approval"), "an answer that comes second changes nothing");
        assertEquals(TaskStatus.COMPLETED, router.task(asked.promptId()).orElseThrow().status());
        assertTrue(Files.notExists(root.resolve("build")), "allowed once, it ran");
        assertEquals("approved", approvals.audit(asked.promptId()).get(1).path("event").asText());

        Files.createDirectories(root.resolve("build"));
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"), Step.Reply.text("again"));
        say(CHAT, "once more");
        OutgoingMessage.Prompt again = prompt();
        String always = last(say(CHAT, "/approve " + again.promptId() + " always"));
        assertTrue(always.matches("(?s).*From now on: allow run_shell if #[0-9a-f]{16} \\(command: rm -rf build\\)\\."),
                always);
        awaitRequests(4);

        Files.createDirectories(root.resolve("build"));
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"), Step.Reply.text("third"));
        assertEquals("third", last(say(CHAT, "and again")), "allowed always: no question this time");
        assertTrue(Files.notExists(root.resolve("build")));

        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build2\"}"), Step.Reply.text("asked"));
        say(CHAT, "one character more");
        assertTrue(prompt().question().contains("rm -rf build2"), "a changed command is not covered by the rule");
    }

    @Test
    void aDenialReachesTheModelAndTheTurnGoesOn() throws Exception {
        startBrain(Map.of(), true);
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"))
                .then(r -> Step.Reply.text("ok, I will not: " + r.lastMessageText()));
        say(CHAT, "delete the build folder");
        OutgoingMessage.Prompt asked = prompt();
        assertEquals("Denied run_shell (" + asked.promptId() + ").", last(say(CHAT, "/deny " + asked.promptId()
                + " keep it")));
        awaitRequests(2);
        assertEquals("Error: Not run: denied by the user: keep it.", model.received().get(1).lastMessageText());
        assertTrue(Files.exists(root.resolve("build")));
        assertEquals(TaskStatus.CANCELLED, router.task(asked.promptId()).orElseThrow().status());
    }

    @Test
    void noAnswerInTimeAppliesTheFallbackAndTheTurnGoesOn() throws Exception {
        startBrain(Map.of("timeout", "1s"), true);
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"))
                .then(r -> Step.Reply.text("no answer: " + r.lastMessageText()));
        say(CHAT, "delete the build folder");
        prompt();
        awaitRequests(2);
        assertEquals("Error: Not run: no answer in 1 second; denied by default (approvals.fallback).",
                model.received().get(1).lastMessageText());
        assertTrue(Files.exists(root.resolve("build")));
    }

    @Test
    void withNoOneToAskTheFallbackAppliesAtOnce() throws Exception {
        startBrain(Map.of(), false);
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"))
                .then(r -> Step.Reply.text("nobody there: " + r.lastMessageText()));
        say(CHAT, "delete the build folder");
        awaitRequests(2);
        assertEquals("Error: Not run: its conversation has no channel that can show the question; denied by default "
                + "(approvals.fallback).", model.received().get(1).lastMessageText());
    }

    @Test
    void onlyTheConversationThatAskedCanAnswerAndDenyRulesRefuseOutright() throws Exception {
        startBrain(Map.of("rules", "deny run_shell if command~.*curl.*"), true);
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"), Step.Reply.text("x"));
        say(CHAT, "delete the build folder");
        OutgoingMessage.Prompt asked = prompt();
        assertEquals("No task with id '" + asked.promptId() + "' in this conversation.",
                last(say(new Conversation("test", "2"), "/approve " + asked.promptId())));
        assertEquals(TaskStatus.AWAITING_APPROVAL, router.task(asked.promptId()).orElseThrow().status());
        assertTrue(last(say(CHAT, "/approvals")).contains(asked.promptId()));
        say(CHAT, "/deny " + asked.promptId());
        awaitRequests(2);

        model.then(Step.Reply.call("run_shell", "{\"command\":\"curl https://example.com/install.sh\"}"))
                .then(r -> Step.Reply.text("refused: " + r.lastMessageText()));
        assertTrue(last(say(CHAT, "turn it off")).startsWith("refused: Error: Refused by the approval policy (rule "
                + "'deny run_shell if command~.*curl.*')"));
        assertTrue(router.tasks(Set.of(), 10).stream().map(Task::params).noneMatch(p -> p.contains("curl")),
                "a denied call never becomes a task");
    }

    @Test
    void askHumanWaitsForDoneOrAReplyAndGoesOnAfterTheTimeout() throws Exception {
        approvalsAndAgent(Map.of("human-timeout", "1s"));
        say(new Conversation("other", "9"), "/help");
        elsewhere.clear();
        model.then(Step.Reply.call("ask_human", "{\"reason\":\"log in to the router page\"}"))
                .then(r -> Step.Reply.text("heard: " + r.lastMessageText()));
        var turn = chat.handle(new IncomingMessage(CHAT, "me", "set up the router"));
        OutgoingMessage.Prompt asked = prompt();
        assertTrue(asked.question().startsWith("The assistant needs you: log in to the router page"), asked.question());
        assertEquals("/done", asked.choices().getFirst().command());
        assertEquals("other:9 The assistant needs you in test:1: log in to the router page",
                elsewhere.poll(10, TimeUnit.SECONDS), "the person hears it on their other channel too");
        assertEquals("Thanks; the assistant goes on.", last(say(CHAT, "/done logged in")));
        turn.get(10, TimeUnit.SECONDS);
        assertEquals("heard: The user answered: logged in", last(chat.history(CHAT, 1)));

        model.then(Step.Reply.call("ask_human", "{\"reason\":\"pick a colour\"}"))
                .then(r -> Step.Reply.text("heard: " + r.lastMessageText()));
        turn = chat.handle(new IncomingMessage(CHAT, "me", "paint it"));
        prompt();
        chat.handle(new IncomingMessage(CHAT, "me", "blue"));
        turn.get(10, TimeUnit.SECONDS);
        assertEquals("heard: The user answered: blue", last(chat.history(CHAT, 1)), "a reply is the answer");

        model.then(Step.Reply.call("ask_human", "{\"reason\":\"solve the captcha\"}"))
                .then(r -> Step.Reply.text("heard: " + r.lastMessageText()));
        say(CHAT, "sign up");
        assertEquals("heard: No response in 1 second. Continuing autonomously.", last(chat.history(CHAT, 1)));
        assertEquals("Nothing is waiting for you here.", last(say(CHAT, "/done")));
    }

    @Test
    void whatTheShellToolForbidsIsRefusedBeforeItIsQueuedWhateverTheRulesAllow() throws Exception {
        startBrain(Map.of("rules", "allow run_shell"), true);
        model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf ~\"}"))
                .then(r -> Step.Reply.text("refused: " + r.lastMessageText()));
        assertTrue(last(say(CHAT, "wipe my home")).startsWith("refused: Error: Refused by the approval policy (the tool "
                + "itself refuses it"));
        assertTrue(router.tasks(Set.of(), 10).isEmpty(), "never queued");
    }
}
