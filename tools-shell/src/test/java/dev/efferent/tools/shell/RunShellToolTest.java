package dev.efferent.tools.shell;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.ProgressListener;
import dev.efferent.core.tools.ToolCall;
import dev.efferent.core.tools.ToolCatalog;
import dev.efferent.core.tools.ToolExecution;
import dev.efferent.core.tools.ToolOutcome;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunShellToolTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Starts a grandchild {@code sleep} (child of a subshell) and records its pid. */
    private static final String GRANDCHILD = "(sleep 300 & echo $! > grandchild.pid; wait); echo never";

    @TempDir
    Path root;
    private LocalToolExecutor executor;

    private LocalToolExecutor executor(Shell shell, int maxOutput) {
        RunShellTool tool = new RunShellTool(new ShellLimits(maxOutput, Duration.ofSeconds(30)), shell,
                ChildEnvironment.of(List.of(), System.getenv(), shell.windows()), new Sandbox.Unconfined());
        executor = new LocalToolExecutor(ToolCatalog.of(List.of(new ShellToolkit(List.of(tool)))),
                AllowedRoots.of(List.of(root)));
        return executor;
    }

    private LocalToolExecutor executor() {
        return executor(Shell.detect(), 64 * 1024);
    }

    @AfterEach
    void close() {
        if (executor != null) {
            executor.close();
        }
    }

    private static ToolCall call(Map<String, ?> params, Duration timeout) {
        ObjectNode node = JSON.valueToTree(params);
        return new ToolCall("test", "run_shell", node, timeout);
    }

    private ToolOutcome run(LocalToolExecutor executor, Map<String, ?> params) throws Exception {
        return executor.execute(call(params, Duration.ofSeconds(60)), ProgressListener.NONE)
                .outcome().get(60, TimeUnit.SECONDS);
    }

    private long grandchildPid() throws Exception {
        Path pidFile = root.resolve("grandchild.pid");
        for (int i = 0; i < 500; i++) {
            if (Files.exists(pidFile) && !Files.readString(pidFile).isBlank()) {
                return Long.parseLong(Files.readString(pidFile).strip());
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the command never started its grandchild");
    }

    private static void assertGone(long pid) throws InterruptedException {
        for (int i = 0; i < 250; i++) {
            Optional<ProcessHandle> handle = ProcessHandle.of(pid);
            if (handle.isEmpty() || !handle.get().isAlive()) {
                return;
            }
            Thread.sleep(20);
        }
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        throw new AssertionError("grandchild sleep " + pid + " is still alive");
    }

    @Test
    void runsACommandAndReturnsExitCodeAndOutput() throws Exception {
        ToolOutcome outcome = run(executor(), Map.of("command", "echo hello; echo oops >&2"));
        ToolResult result = outcome.result().orElseThrow();
        assertEquals("exit code: 0\n--- stdout ---\nhello\n--- stderr ---\noops\n", result.text());
        assertEquals(0, result.structured().get("exitCode"));
        assertFalse(result.isError());
    }

    @Test
    void nonZeroExitIsAnErrorResultWithItsCode() throws Exception {
        ToolResult result = run(executor(), Map.of("command", "echo failing >&2; exit 3")).result().orElseThrow();
        assertTrue(result.isError());
        assertEquals(3, result.structured().get("exitCode"));
        assertTrue(result.text().startsWith("exit code: 3\n"), result.text());
    }

    @Test
    void runsInTheGivenDirectoryInsideARoot() throws Exception {
        Files.createDirectories(root.resolve("sub"));
        ToolResult result = run(executor(), Map.of("command", "pwd", "cwd", "sub")).result().orElseThrow();
        assertEquals(root.toRealPath().resolve("sub").toString(), ((String) result.structured().get("stdout")).strip());
        ToolOutcome outside = run(executor, Map.of("command", "pwd", "cwd", "/"));
        assertEquals(ToolOutcome.Status.FAILED, outside.status());
        assertTrue(outside.error().orElseThrow().contains("outside the allowed roots"), outside.error().orElseThrow());
    }

    @Test
    void outputIsCappedAndTheCutIsMarked() throws Exception {
        ToolResult result = run(executor(Shell.detect(), 1024),
                Map.of("command", "head -c 5000 /dev/zero | tr '\\0' 'a'")).result().orElseThrow();
        assertEquals(1024, ((String) result.structured().get("stdout")).length());
        assertEquals(3976L, result.structured().get("stdoutTruncatedBytes"));
        assertTrue(result.text().endsWith("[… stdout truncated: 3976 more bytes not shown]\n"), result.text());
    }

    @Test
    void outputLinesAreReportedAsProgress() throws Exception {
        List<String> progress = new CopyOnWriteArrayList<>();
        executor().execute(call(Map.of("command", "for i in 1 2 3; do echo line$i; sleep 0.3; done"),
                Duration.ofSeconds(30)), (task, percent, message) -> progress.add(message))
                .outcome().get(30, TimeUnit.SECONDS);
        // Each line, with how many came so far and how long the command has run: no percentage is known.
        assertFalse(progress.isEmpty());
        assertTrue(progress.stream().allMatch(m -> m.matches("(\\d) lines?, [0-9]+ s: line\\1")), progress.toString());
        assertTrue(progress.contains("1 line, 0 s: line1"), progress.toString());
    }

    @Test
    void timeoutKillsTheWholeProcessTree() throws Exception {
        ToolExecution execution = executor().execute(call(Map.of("command", GRANDCHILD, "timeout", 2),
                Duration.ofSeconds(60)), ProgressListener.NONE);
        long pid = grandchildPid();
        ToolOutcome outcome = execution.outcome().get(30, TimeUnit.SECONDS);
        assertEquals(ToolOutcome.Status.FAILED, outcome.status());
        assertTrue(outcome.error().orElseThrow().contains("timed out after 2s and was killed with its child processes"),
                outcome.error().orElseThrow());
        assertGone(pid);
    }

    @Test
    void taskDeadlineShorterThanTheTimeoutWins() throws Exception {
        ToolExecution execution = executor().execute(call(Map.of("command", GRANDCHILD, "timeout", 600),
                Duration.ofSeconds(2)), ProgressListener.NONE);
        long pid = grandchildPid();
        ToolOutcome outcome = execution.outcome().get(30, TimeUnit.SECONDS);
        assertEquals("timed out after 2s", outcome.error().orElseThrow());
        assertGone(pid);
    }

    @Test
    void cancelKillsTheWholeProcessTree() throws Exception {
        ToolExecution execution = executor().execute(call(Map.of("command", GRANDCHILD), Duration.ofSeconds(60)),
                ProgressListener.NONE);
        long pid = grandchildPid();
        execution.cancel("cancelled by user");
        assertEquals(ToolOutcome.Status.CANCELLED, execution.outcome().get(10, TimeUnit.SECONDS).status());
        assertGone(pid);
    }

    @Test
    void cancelKillsTheTreeEvenWithoutAProcessGroup() throws Exception {
        ToolExecution execution = executor(new Shell(false, Optional.empty()), 65536)
                .execute(call(Map.of("command", GRANDCHILD), Duration.ofSeconds(60)), ProgressListener.NONE);
        long pid = grandchildPid();
        execution.cancel("cancelled by user");
        assertEquals(ToolOutcome.Status.CANCELLED, execution.outcome().get(10, TimeUnit.SECONDS).status());
        assertGone(pid);
    }

    @Test
    void destructiveCommandIsRefusedBeforeAnythingRuns() throws Exception {
        ToolOutcome outcome = run(executor(), Map.of("command", "touch ran.txt; shutdown -h now"));
        assertEquals(ToolOutcome.Status.FAILED, outcome.status());
        assertEquals("refused to run 'touch ran.txt; shutdown -h now': it shuts down or restarts the machine. "
                + "Nothing was run; if you really mean it, run it yourself in a terminal.", outcome.error().orElseThrow());
        assertFalse(Files.exists(root.resolve("ran.txt")));
    }

    @Test
    void timeoutParamIsValidated() throws Exception {
        ToolOutcome outcome = run(executor(), Map.of("command", "true", "timeout", 0));
        assertTrue(outcome.error().orElseThrow().contains("$.timeout"), outcome.error().orElseThrow());
    }

    @Test
    void unknownCommandReportsTheShellsError() throws Exception {
        ToolResult result = run(executor(), Map.of("command", "no-such-command-xyz")).result().orElseThrow();
        assertEquals(127, result.structured().get("exitCode"));
        assertTrue(result.text().contains("not found"), result.text());
    }

    @Test
    void commandsGetNoneOfTheWorkersEfferentVariables() throws Exception {
        assertEquals("leak", System.getenv("EFFERENT_TEST_SECRET"),
                "tools-shell/pom.xml has surefire set EFFERENT_TEST_SECRET, so this test has something to leak");
        ToolResult result = run(executor(), Map.of("command", "env")).result().orElseThrow();
        String env = (String) result.structured().get("stdout");
        assertTrue(env.contains("PATH="), env);
        assertFalse(env.contains("EFFERENT_"), env);
        assertFalse(env.contains("leak"), env);
    }

    @Test
    void fileWrittenByTheCommandIsInTheRoot() throws Exception, IOException {
        run(executor(), Map.of("command", "echo data > out.txt"));
        assertEquals("data\n", Files.readString(root.resolve("out.txt")));
    }
}
