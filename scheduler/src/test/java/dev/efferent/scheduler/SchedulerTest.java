package dev.efferent.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.ApprovalSettings;
import dev.efferent.approvals.Approvals;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.assistant.Replies;
import dev.efferent.calls.Gateway;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.tools.LocalTools;
import dev.efferent.model.spi.ToolCall;
import dev.efferent.plugin.Settings;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import dev.efferent.queue.contract.MutableClock;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Schedules fired by hand at the times a controllable clock says: on time, late, twice, never. */
class SchedulerTest {
    private static final Conversation CHAT = new Conversation("console", "c1");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-23T00:29:59Z"));
    private final Store store = Stores.inMemory();
    /** The schedules as the scheduler keeps them, to write what another brain or version would. */
    private final Space<String> records = store.claim(ScheduleStore.SCHEDULES, ScheduleStore.OWNER);
    private final Host host = new Host();
    private final List<Scheduler> schedulers = new ArrayList<>();
    private TaskQueue queue;
    private Router router;
    private Approvals approvals;

    @BeforeEach
    void start() {
        var config = ConfigLoader.load(Map.of("tools.roots", root.toString()), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(false), queue, Stores.inMemory(),
                LocalTools.open(config),
                new ProtocolCodec(), Clock.systemUTC());
        approvals = new Approvals(router, ApprovalSettings.defaults(), Stores.inMemory(), Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        schedulers.forEach(Scheduler::close);
        approvals.close();
        router.close();
        queue.close();
    }

    /** A scheduler over the test's records, as a brain (re)started now would have; driven by hand. */
    private Scheduler scheduler(Map<String, String> settings) {
        Scheduler s = new Scheduler(new Gateway(router, approvals), store, SchedulerSettings.from(Settings.of(settings)), clock);
        s.attach(host);
        schedulers.add(s);
        return s;
    }

    private Scheduler scheduler() {
        return scheduler(Map.of("zone", "UTC"));
    }

    /** A scheduler for which a fire more than 5 s late was missed. */
    private Scheduler restarted(String missedAfter, String maxCatchUp) {
        return scheduler(Map.of("zone", "UTC", "missed-after", missedAfter, "max-catch-up", maxCatchUp));
    }

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    private String say(Scheduler s, String text) {
        return new ScheduleCommands(s).command(new IncomingMessage(CHAT, "me", text)).orElseThrow().getFirst().text();
    }

    @Test
    void aCronScheduleFiresOnTheMinuteInItsZoneAndOnlyThen() throws Exception {
        Scheduler s = scheduler();
        Schedule standup = s.create(CHAT.key(), json("{\"cron\": \"30 9 * * *\", \"zone\": \"Asia/Tokyo\", "
                + "\"remind\": \"standup\"}"));
        // 09:30 in Tokyo is 00:30 UTC.
        assertEquals(Optional.of(Instant.parse("2026-11-23T00:30:00Z")), standup.next());
        s.runDue();
        assertEquals(List.of(), host.posted, "at 09:29:59 nothing fires");
        clock.advance(Duration.ofSeconds(1));
        s.runDue();
        s.runDue();
        assertEquals(List.of("console:c1|⏰ standup"), host.posted, "at 09:30:00 it fires, once");
        assertEquals(Optional.of(Instant.parse("2026-11-24T00:30:00Z")), s.get(standup.id()).orElseThrow().next());
        assertEquals(1, s.get(standup.id()).orElseThrow().runs());
    }

    @Test
    void aBrainDownAcrossAFireRunsItOnceAfterwardsWithRunOnce() throws Exception {
        Schedule every = scheduler().create(CHAT.key(), json("{\"every\": \"1m\", \"remind\": \"drink water\"}"));
        // The brain is down for ten and a half minutes: ten fires fall meanwhile, the last 30 s ago.
        clock.advance(Duration.ofSeconds(630));
        Scheduler restarted = restarted("5s", "10");
        restarted.runDue();
        restarted.runDue();
        assertEquals(List.of("console:c1|⏰ drink water"), host.posted, "run-once: one fire for the ten missed");
        Schedule after = restarted.get(every.id()).orElseThrow();
        assertTrue(after.next().orElseThrow().isAfter(clock.instant()), "the next fire is to come: " + after.next());
        clock.advance(Duration.ofSeconds(30));
        restarted.runDue();
        assertEquals(2, host.posted.size(), "then on time again: " + host.posted);
    }

    @Test
    void aBrainDownAcrossAFireSkipsItWithSkip() throws Exception {
        scheduler().create(CHAT.key(), json("{\"every\": \"1m\", \"remind\": \"drink water\", \"missed\": \"skip\"}"));
        clock.advance(Duration.ofSeconds(630));
        Scheduler restarted = restarted("5s", "10");
        restarted.runDue();
        assertEquals(List.of(), host.posted, "skip: nothing for the missed fires");
        clock.advance(Duration.ofSeconds(30));
        restarted.runDue();
        assertEquals(List.of("console:c1|⏰ drink water"), host.posted, "the next fire on time runs");
    }

    @Test
    void runAllCatchesUpOnMissedFiresUpToItsBound() throws Exception {
        scheduler().create(CHAT.key(), json("{\"every\": \"1m\", \"remind\": \"tick\", \"missed\": \"run-all\"}"));
        clock.advance(Duration.ofSeconds(630));
        restarted("5s", "3").runDue();
        assertEquals(3, host.posted.size(), "three of the ten missed fires: " + host.posted);
    }

    @Test
    void aLateFireWithinMissedAfterIsNotMissed() throws Exception {
        scheduler().create(CHAT.key(), json("{\"every\": \"1m\", \"remind\": \"tick\", \"missed\": \"skip\"}"));
        clock.advance(Duration.ofSeconds(90));
        scheduler().runDue();
        assertEquals(1, host.posted.size(), "30 s late is on time (scheduler.missed-after is 1m by default): " + host.posted);
    }

    @Test
    void maxRunsAndUntilEndASchedule() throws Exception {
        Scheduler s = scheduler();
        Schedule twice = s.create(CHAT.key(), json("{\"every\": \"1m\", \"remind\": \"twice\", \"maxRuns\": 2}"));
        Schedule until = s.create(CHAT.key(), json("{\"every\": \"1m\", \"remind\": \"until\", "
                + "\"until\": \"2026-11-23T00:33:00Z\"}"));
        for (int i = 0; i < 5; i++) {
            clock.advance(Duration.ofMinutes(1));
            s.runDue();
        }
        assertEquals(2, host.posted.stream().filter(p -> p.endsWith("twice")).count(), host.posted.toString());
        assertEquals(3, host.posted.stream().filter(p -> p.endsWith("until")).count(), "00:30:59, 00:31:59 and "
                + "00:32:59 fire; 00:33:59 is after until: " + host.posted);
        assertTrue(s.get(twice.id()).isEmpty(), "ended, it is gone");
        assertTrue(s.get(until.id()).isEmpty());
        assertEquals(List.of(), s.list());
    }

    @Test
    void twoBrainsOverOneStoreFireEachTimeOnce() throws Exception {
        Scheduler a = scheduler();
        Scheduler b = scheduler();
        a.create(CHAT.key(), json("{\"every\": \"1m\", \"remind\": \"once\"}"));
        a.create(CHAT.key(), json("{\"every\": \"1m\", \"tool\": \"list_dir\", \"params\": {\"path\": \".\"}}"));
        for (int i = 0; i < 20; i++) {
            clock.advance(Duration.ofMinutes(1));
            CountDownLatch go = new CountDownLatch(1);
            Thread other = Thread.ofPlatform().start(() -> {
                await(go);
                b.runDue();
            });
            go.countDown();
            a.runDue();
            other.join();
        }
        assertEquals(20, host.posted.stream().filter(p -> p.endsWith("⏰ once")).count(), host.posted.toString());
        List<Task> fired = router.tasks(EnumSet.allOf(TaskStatus.class), 100).stream()
                .filter(t -> t.tool().equals("list_dir")).toList();
        assertEquals(20, fired.size(), "one task per fire");
        assertEquals(20, fired.stream().map(t -> t.idempotencyKey().orElseThrow()).distinct().count());
        assertTrue(fired.stream().allMatch(t -> t.session().orElseThrow().equals(CHAT.key())),
                "each reports to the schedule's conversation");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aToolCallFireIsATaskKeyedByScheduleAndTimeSoARetryGivesItBack() throws Exception {
        Scheduler s = scheduler();
        Schedule ls = s.create(CHAT.key(), json("{\"in\": \"10s\", \"tool\": \"list_dir\", \"params\": "
                + "{\"path\": \".\"}}"));
        String stored = records.get(ls.id()).orElseThrow();
        clock.advance(Duration.ofSeconds(10));
        s.runDue();
        List<Task> tasks = router.tasks(EnumSet.allOf(TaskStatus.class), 10);
        assertEquals(1, tasks.size());
        assertEquals("schedule:" + ls.id() + ":2026-11-23T00:30:09Z", tasks.getFirst().idempotencyKey().orElseThrow());
        // A brain that stopped after submitting, before moving the schedule on, fires the same time again.
        records.put(ls.id(), stored);
        s.runDue();
        assertEquals(1, router.tasks(EnumSet.allOf(TaskStatus.class), 10).size(), "the same task, not a second");
        assertTrue(s.get(ls.id()).isEmpty(), "a one-shot schedule ends when it has fired");
    }

    @Test
    void aPromptFireSpeaksToTheAssistantInItsConversation() throws Exception {
        Scheduler s = scheduler();
        s.create(CHAT.key(), json("{\"in\": \"5m\", \"prompt\": \"check the tests\"}"));
        clock.advance(Duration.ofMinutes(5));
        s.runDue();
        assertEquals(1, host.received.size(), host.posted + " " + s.list());
        assertEquals("check the tests", host.received.getFirst().text());
        assertEquals(CHAT, host.received.getFirst().conversation());
        assertTrue(host.posted.getFirst().contains("check the tests"), "the person sees why the assistant speaks");
    }

    @Test
    void commandsSetListAndRemoveSchedules() throws Exception {
        Scheduler s = scheduler();
        String reminded = say(s, "/remind soon stretch");
        assertTrue(reminded.startsWith("Not scheduled: 'soon' is not a duration for /remind: write 30s, 10m, 1h or "
                + "2d.\nUsage: /remind <when> <text>"), reminded);
        reminded = say(s, "/remind in 10m stretch your legs");
        assertTrue(reminded.startsWith("I will remind you at 2026-11-23 00:39:59 UTC (s-"), reminded);
        assertTrue(say(s, "/remind at 09:00 call mum").startsWith("I will remind you at 2026-11-23 09:00:00 UTC"));
        assertTrue(say(s, "/remind at 2026-12-01 08:15 dentist").startsWith("I will remind you at "
                + "2026-12-01 08:15:00 UTC"));
        assertTrue(say(s, "/remind at 2020-01-01T00:00 too late").startsWith("Not scheduled: 2020-01-01 00:00:00 UTC "
                + "has passed."));
        assertTrue(say(s, "/remind 10m").startsWith("Not scheduled: say what to be reminded of."));
        assertTrue(say(s, "/remind").contains("Usage: /remind <when> <text>"));

        String every = say(s, "/every 1h /shell make test");
        assertTrue(every.startsWith("Scheduled s-"), every);
        assertTrue(every.contains("every 1 hour, run run_shell {\"command\":\"make test\"}"), every);
        assertTrue(say(s, "/every \"0 9 * * mon-fri\" summarise my inbox").contains("cron '0 9 * * mon-fri' (UTC), "
                + "prompt: summarise my inbox; next 2026-11-23 09:00:00 UTC"));
        assertTrue(say(s, "/every 1h /tasks").startsWith("Not scheduled: only the commands that run a tool"));
        assertTrue(say(s, "/every 500ms /shell date").startsWith("Not scheduled: an interval must be at least 1 "
                + "second"));
        assertTrue(say(s, "/every \"61 * * * *\" x").startsWith("Not scheduled: cron minute '61'"));
        assertTrue(say(s, "/every 1h /run").startsWith("Not scheduled: Usage: /run <tool> <json>"));
        assertTrue(say(s, "/every 1h /run no_such_tool {}").startsWith("Not scheduled: no machine has a tool named "
                + "'no_such_tool'"));

        String list = say(s, "/schedules");
        assertEquals(6, list.lines().count(), list);
        String id = s.list(CHAT.key()).getFirst().id();
        assertTrue(say(s, "/unschedule " + id).startsWith("Removed schedule " + id));
        assertTrue(say(s, "/unschedule " + id).startsWith("There is no schedule " + id));
        assertEquals(4, s.list(CHAT.key()).size());
        assertTrue(new ScheduleCommands(s).command(new IncomingMessage(CHAT, "me", "/tasks")).isEmpty(),
                "not the scheduler's command");
    }

    @Test
    void theModelSchedulesRemindersAndPromptsButNeverACommandOrAToolCall() throws Exception {
        Scheduler s = scheduler();
        ScheduleCommands chat = new ScheduleCommands(s);
        String said = chat.call(CHAT, new ToolCall("1", "schedule", "{\"in\": \"30m\", \"remind\": \"stretch\"}"));
        assertTrue(said.startsWith("Scheduled s-"), said);
        assertEquals("Not scheduled: a prompt is free text for the assistant; a command cannot be scheduled as one.",
                chat.call(CHAT, new ToolCall("2", "schedule", "{\"every\": \"5m\", \"prompt\": \"/shell rm -rf ~\"}")));
        assertTrue(chat.call(CHAT, new ToolCall("3", "schedule", "{\"every\": \"5m\", \"tool\": \"run_shell\", "
                + "\"params\": {\"command\": \"rm -rf ~\"}}")).startsWith("Not scheduled: schedule a prompt instead"));
        assertTrue(chat.call(CHAT, new ToolCall("4", "schedule", "{\"in\": \"5m\", \"every\": \"1h\", \"remind\": "
                + "\"x\"}")).startsWith("Not scheduled: say when with exactly one of in"));
        assertTrue(chat.call(CHAT, new ToolCall("5", "schedule", "not json")).startsWith("The arguments are not valid "
                + "JSON"));
        String id = s.list(CHAT.key()).getFirst().id();
        Conversation other = new Conversation("telegram", "9");
        assertTrue(chat.call(other, new ToolCall("6", "unschedule", "{\"id\": \"" + id + "\"}"))
                .startsWith("There is no schedule " + id + " in this conversation"), "another conversation's model "
                + "cannot remove it");
        assertTrue(chat.call(CHAT, new ToolCall("7", "list_schedules", "{}")).contains(id));
        assertTrue(chat.call(CHAT, new ToolCall("8", "unschedule", "{\"id\": \"" + id + "\"}")).startsWith("Removed"));
    }

    @Test
    void aRequestThatIsWrongSaysWhatToWrite() throws Exception {
        Scheduler s = scheduler(Map.of("zone", "UTC", "max-per-conversation", "2"));
        assertEquals("say what with exactly one of remind (a text to post), prompt (for the assistant) or tool (with "
                + "params and worker), got none", assertThrows(IllegalArgumentException.class,
                () -> s.create(CHAT.key(), json("{\"in\": \"1m\"}"))).getMessage());
        assertEquals("'Mars/Olympus' is not a time zone: write one such as Europe/Paris, America/New_York or UTC",
                assertThrows(IllegalArgumentException.class, () -> s.create(CHAT.key(), json("{\"cron\": "
                        + "\"0 9 * * *\", \"zone\": \"Mars/Olympus\", \"remind\": \"x\"}"))).getMessage());
        assertEquals("'missed' is skip, run-once or run-all, got 'later'", assertThrows(IllegalArgumentException.class,
                () -> s.create(CHAT.key(), json("{\"in\": \"1m\", \"remind\": \"x\", \"missed\": \"later\"}")))
                .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.create(CHAT.key(), json("{\"in\": \"1m\", "
                + "\"remind\": \"x\", \"maxRuns\": 0}"))).getMessage().startsWith("'maxRuns' must be a whole number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.create(CHAT.key(), json("{\"every\": \"1m\", "
                + "\"remind\": \"x\", \"until\": \"2026-01-01T00:00:00Z\"}"))).getMessage()
                .startsWith("it would never fire"));
        assertThrows(IllegalArgumentException.class, () -> s.create(CHAT.key(), json("[1]")));
        s.create(CHAT.key(), json("{\"in\": \"1m\", \"remind\": \"a\"}"));
        s.create(CHAT.key(), json("{\"in\": \"1m\", \"remind\": \"b\"}"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.create(CHAT.key(), json("{\"in\": \"1m\", "
                + "\"remind\": \"c\"}"))).getMessage().startsWith("this conversation has 2 schedules, the most"));
    }

    @Test
    void aScheduleThisBrainCannotReadIsLeftForOneThatCanAndTheOthersFire() throws Exception {
        Scheduler s = scheduler();
        // Written by a newer brain over the same database, say: not this one's to delete.
        records.put("s-newer", "{\"id\":\"s-newer\",\"when\":{\"lunar\":\"full moon\"}}");
        s.create(CHAT.key(), json("{\"in\": \"1s\", \"remind\": \"still here\"}"));
        clock.advance(Duration.ofSeconds(1));
        s.runDue();
        s.runDue();
        assertEquals(List.of("console:c1|⏰ still here"), host.posted);
        assertTrue(records.get("s-newer").isPresent());
    }

    @Test
    void aToolCallFireDecidedButNotSubmittedBeforeTheBrainStoppedIsSubmittedByTheNextPass() throws Exception {
        Scheduler s = scheduler();
        Schedule ls = s.create(CHAT.key(), json("{\"every\": \"1m\", \"tool\": \"list_dir\", \"params\": "
                + "{\"path\": \".\"}}"));
        // What a brain stopped right after winning the fire at 00:30:59 leaves: the fire pending, the next time set.
        var stored = (ObjectNode) JSON.readTree(
                records.get(ls.id()).orElseThrow());
        stored.put("next", "2026-11-23T00:31:59Z").put("runs", 1).putArray("pending").add("2026-11-23T00:30:59Z");
        records.put(ls.id(), stored.toString());
        clock.advance(Duration.ofSeconds(61));
        s.runDue();
        s.runDue();
        List<Task> tasks = router.tasks(EnumSet.allOf(TaskStatus.class), 10);
        assertEquals(List.of("schedule:" + ls.id() + ":2026-11-23T00:30:59Z"),
                tasks.stream().map(t -> t.idempotencyKey().orElseThrow()).toList(), "the pending fire, once");
        assertTrue(s.get(ls.id()).orElseThrow().pending().isEmpty());
    }

    @Test
    void durationsTooLongAndPromptsTooOftenAreRefused() throws Exception {
        Scheduler s = scheduler();
        assertEquals("every must be at most ten years, got '200000d'", assertThrows(IllegalArgumentException.class,
                () -> s.create(CHAT.key(), json("{\"every\": \"200000d\", \"remind\": \"x\"}"))).getMessage());
        assertEquals("in must be at most ten years, got '999999999999d'", assertThrows(IllegalArgumentException.class,
                () -> s.create(CHAT.key(), json("{\"in\": \"999999999999d\", \"remind\": \"x\"}"))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> s.create(CHAT.key(), json("{\"at\": "
                + "\"+999999-01-01T00:00:00Z\", \"remind\": \"x\"}"))).getMessage().contains("is more than ten years away"));
        assertEquals("a prompt can be scheduled at most once a minute, got every 30 seconds",
                assertThrows(IllegalArgumentException.class, () -> s.create(CHAT.key(), json("{\"every\": \"30s\", "
                        + "\"prompt\": \"check the tests\"}"))).getMessage());
        assertTrue(say(s, "/remind at 9:00 call mum").startsWith("I will remind you at 2026-11-23 09:00:00 UTC"),
                "9:00 is 09:00");
    }

    /** The conversations, as the scheduler reaches them: what was posted and what was said on the person's behalf. */
    private static final class Host implements AssistantHost {
        final List<String> posted = new CopyOnWriteArrayList<>();
        final List<IncomingMessage> received = new CopyOnWriteArrayList<>();

        @Override
        public Replies replies(Conversation conversation) {
            return new Replies() {
                @Override
                public void send(OutgoingMessage message) {
                    posted.add(conversation.key() + "|" + message.text());
                }

                @Override
                public void stream(String appended) {
                }

                @Override
                public void finish() {
                }
            };
        }

        @Override
        public void inTurn(Conversation conversation, Runnable turn) {
            turn.run();
        }

        @Override
        public void prompt(IncomingMessage message) {
            received.add(message);
        }

        @Override
        public boolean reachable(Conversation conversation) {
            return true;
        }

        @Override
        public void notifyElsewhere(Conversation origin, OutgoingMessage message) {
        }
    }
}
