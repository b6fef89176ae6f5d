package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocalToolExecutorTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path root;
    private FakeToolkit toolkit;
    private LocalToolExecutor executor;

    @BeforeEach
    void setUp() {
        toolkit = new FakeToolkit();
        executor = new LocalToolExecutor(ToolCatalog.of(List.of(toolkit)), AllowedRoots.of(List.of(root)));
    }

    @AfterEach
    void tearDown() {
        executor.close();
    }

    private static ObjectNode params(String json) throws Exception {
        return (ObjectNode) JSON.readTree(json);
    }

    private static String text(ToolOutcome outcome) {
        return outcome.result().orElseThrow().text();
    }

    private ToolOutcome run(String tool, String json) throws Exception {
        return executor.execute(new ToolCall("t1", tool, params(json), Duration.ofSeconds(10)), ProgressListener.NONE)
                .outcome().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCallCheckedBeforeItStartsIsCheckedAgainOnlyIfItsToolChangedMeanwhile() throws Exception {
        ChangingToolkit changing = new ChangingToolkit(FakeToolkit.tool("say", "{\"type\":\"object\"}",
                (p, c) -> ToolResult.text("said")));
        LocalToolExecutor checkedOnce = new LocalToolExecutor(ToolCatalog.of(List.of(changing)),
                AllowedRoots.of(List.of(root)));
        try {
            ToolCall call = new ToolCall("t1", "say", params("{\"loud\":true}"), Duration.ofSeconds(10));
            LocalToolExecutor.Checked checked = checkedOnce.checkOnce("say", call.params());
            assertEquals(Optional.empty(), checked.refusal());
            assertEquals("said", text(checkedOnce.execute(call, ProgressListener.NONE, checked).outcome()
                    .get(10, TimeUnit.SECONDS)));

            // The toolkit now wants a text: a call checked against the tool as it was is checked again, and refused.
            changing.offered.set(0, FakeToolkit.tool("say", "{\"type\":\"object\",\"required\":[\"text\"]}",
                    (p, c) -> ToolResult.text("said")));
            changing.changed();
            ToolOutcome refused = checkedOnce.execute(call, ProgressListener.NONE, checked).outcome()
                    .get(10, TimeUnit.SECONDS);
            assertEquals(ToolOutcome.Status.FAILED, refused.status());
            assertTrue(refused.error().orElseThrow().startsWith("invalid params for say"), refused.toString());
        } finally {
            checkedOnce.close();
        }
    }

    @Test
    void runsAToolAndReturnsItsResult() throws Exception {
        ToolOutcome outcome = run("echo", "{\"text\":\"ab\",\"count\":3}");
        assertEquals(ToolOutcome.Status.COMPLETED, outcome.status());
        assertEquals("ababab", outcome.result().orElseThrow().text());
    }

    @Test
    void missingRequiredParamIsNamed() throws Exception {
        ToolOutcome outcome = run("echo", "{}");
        assertEquals(ToolOutcome.Status.FAILED, outcome.status());
        String error = outcome.error().orElseThrow();
        assertTrue(error.startsWith("invalid params for echo: "), error);
        assertTrue(error.contains("text") && error.contains("required"), error);
    }

    @Test
    void wrongTypeIsNamed() throws Exception {
        String error = run("echo", "{\"text\":\"a\",\"count\":\"three\"}").error().orElseThrow();
        assertTrue(error.contains("$.count") && error.contains("string") && error.contains("integer"), error);
    }

    @Test
    void outOfRangeAndUnknownParamsAreNamed() throws Exception {
        assertTrue(run("echo", "{\"text\":\"a\",\"count\":0}").error().orElseThrow().contains("$.count"));
        String unknown = run("echo", "{\"text\":\"a\",\"colour\":\"red\"}").error().orElseThrow();
        assertTrue(unknown.contains("colour"), unknown);
    }

    @Test
    void checkTellsUnknownToolsFromBadParams() throws Exception {
        var unknown = executor.check("nope", params("{}")).orElseThrow();
        assertEquals(LocalToolExecutor.Refusal.Kind.UNKNOWN_TOOL, unknown.kind());
        assertEquals("unknown tool 'nope'; this machine has [boom, echo, leaveinterrupted, progress, refuse, slow, whoami]", unknown.message());
        assertEquals(LocalToolExecutor.Refusal.Kind.BAD_PARAMS, executor.check("echo", params("{}")).orElseThrow().kind());
        assertTrue(executor.check("echo", params("{\"text\":\"x\"}")).isEmpty());
        assertEquals("unknown tool 'nope'; this machine has [boom, echo, leaveinterrupted, progress, refuse, slow, whoami]",
                run("nope", "{}").error().orElseThrow());
    }

    @Test
    void toolExceptionBecomesAFailureWithItsMessage() throws Exception {
        ToolOutcome outcome = run("refuse", "{}");
        assertEquals(ToolOutcome.Status.FAILED, outcome.status());
        assertEquals("path 'x' is outside the allowed roots", outcome.error().orElseThrow());
    }

    @Test
    void anyOtherExceptionBecomesAFailureNotACrash() throws Exception {
        ToolOutcome outcome = run("boom", "{}");
        assertEquals(ToolOutcome.Status.FAILED, outcome.status());
        assertEquals("boom failed: IllegalStateException: kaput", outcome.error().orElseThrow());
        assertEquals(ToolOutcome.Status.COMPLETED, run("echo", "{\"text\":\"still alive\"}").status());
    }

    @Test
    void progressIsForwardedAndClamped() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        executor.execute(new ToolCall("t9", "progress", params("{}"), Duration.ofSeconds(5)),
                        (task, percent, message) -> seen.add(task + " " + percent + " " + message))
                .outcome().get(5, TimeUnit.SECONDS);
        assertEquals(List.of("t9 10 ten", "t9 100 over", "t9 0 "), seen);
    }

    @Test
    void deadlineFailsTheCallAndRunsItsCancelHooks() throws Exception {
        ToolExecution execution = executor.execute(new ToolCall("t2", "slow", params("{}"), Duration.ofMillis(300)),
                ProgressListener.NONE);
        ToolOutcome outcome = execution.outcome().get(10, TimeUnit.SECONDS);
        assertEquals(ToolOutcome.Status.FAILED, outcome.status());
        assertEquals("timed out after 300ms", outcome.error().orElseThrow());
        assertTrue(toolkit.cancelHookRan.await(5, TimeUnit.SECONDS));
    }

    @Test
    void cancelEndsTheCallAtOnceInterruptsTheToolAndRunsHooks() throws Exception {
        ToolExecution execution = executor.execute(new ToolCall("t3", "slow", params("{}"), Duration.ofMinutes(1)),
                ProgressListener.NONE);
        assertTrue(toolkit.slowStarted.await(5, TimeUnit.SECONDS));
        execution.cancel("cancelled by user");
        ToolOutcome outcome = execution.outcome().get(5, TimeUnit.SECONDS);
        assertEquals(ToolOutcome.Status.CANCELLED, outcome.status());
        assertEquals("cancelled by user", outcome.error().orElseThrow());
        assertTrue(toolkit.cancelHookRan.await(5, TimeUnit.SECONDS));
        for (int i = 0; i < 100 && !toolkit.slowSawInterrupt; i++) {
            Thread.sleep(20);
        }
        assertTrue(toolkit.slowSawInterrupt, "the tool's thread was interrupted");
    }

    @Test
    void aToolsThreadServesTheNextCallWithoutWhatTheLastOneLeftOnIt() throws Exception {
        Set<String> threads = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            // One call leaves its thread interrupted and at another priority; the next one, perhaps on that thread,
            // sees neither.
            ToolExecution left = executor.execute(new ToolCall("l" + i, "leaveinterrupted", params("{}"),
                    Duration.ofSeconds(5)), ProgressListener.NONE);
            left.released().get(5, TimeUnit.SECONDS);
            Thread.sleep(20);
            ToolExecution who = executor.execute(new ToolCall("w" + i, "whoami", params("{}"), Duration.ofSeconds(5)),
                    ProgressListener.NONE);
            String[] seen = text(who.outcome().get(5, TimeUnit.SECONDS)).split(" ");
            who.released().get(5, TimeUnit.SECONDS);
            Thread.sleep(20);
            assertEquals("false", seen[1], "no interrupt left over from another call on thread " + seen[0]);
            assertEquals("efferent-tool-whoami-w" + i, seen[2], "named for the call it runs");
            assertEquals(String.valueOf(Thread.NORM_PRIORITY), seen[3], "the priority put back");
            threads.add(seen[0]);
        }
        assertTrue(threads.size() <= 2, "twenty calls one after another on " + threads.size() + " threads");
    }

    @Test
    void cancelAfterTheEndChangesNothing() throws Exception {
        ToolExecution execution = executor.execute(new ToolCall("t4", "echo", params("{\"text\":\"x\"}"),
                Duration.ofSeconds(5)), ProgressListener.NONE);
        ToolOutcome done = execution.outcome().get(5, TimeUnit.SECONDS);
        execution.cancel("too late");
        assertEquals(done, execution.outcome().get());
        assertEquals(ToolOutcome.Status.COMPLETED, done.status());
    }

    @Test
    void durationsReadAsPeopleWriteThem() {
        assertEquals("30s", DurationText.of(Duration.ofSeconds(30)));
        assertEquals("1500ms", DurationText.of(Duration.ofMillis(1500)));
        assertEquals("5m", DurationText.of(Duration.ofMinutes(5)));
        assertEquals("1h 30m", DurationText.of(Duration.ofMinutes(90)));
        assertEquals("2h", DurationText.of(Duration.ofHours(2)));
        assertEquals("10 minutes", DurationText.words(Duration.ofMinutes(10)));
        assertEquals("1 hour", DurationText.words(Duration.ofHours(1)));
        assertEquals("1 second", DurationText.words(Duration.ofSeconds(1)));
        assertEquals("90 seconds", DurationText.words(Duration.ofSeconds(90)));
        assertEquals("1500ms", DurationText.words(Duration.ofMillis(1500)));
    }
}
