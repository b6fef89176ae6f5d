package dev.efferent.tools.shell;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.ProgressListener;
import dev.efferent.core.tools.ToolCall;
import dev.efferent.core.tools.ToolCatalog;
import dev.efferent.core.tools.ToolExecution;
import dev.efferent.core.tools.ToolOutcome;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * run_shell under bubblewrap, for real. Without bubblewrap these tests are skipped on a developer's machine and
 * fail on CI ({@code CI=true}), where a skipped sandbox test would hide that the sandbox is not tested at all.
 */
class BwrapSandboxTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;
    private LocalToolExecutor executor;
    private Sandbox sandbox;
    private Path scratch;

    @BeforeEach
    void requireBubblewrap() {
        if (BwrapSandbox.find(System.getenv("PATH"), BwrapSandbox.USUAL).isPresent()) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("bubblewrap is not installed, so the shell sandbox cannot be tested: install it on the CI image "
                    + "(apt-get install bubblewrap)");
        }
        assumeTrue(false, "bubblewrap is not installed; sandbox tests skipped (they fail when CI=true)");
    }

    @AfterEach
    void close() throws IOException {
        if (executor != null) {
            executor.close();
        }
        if (scratch != null) {
            try (Stream<Path> files = Files.walk(scratch)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private LocalToolExecutor executor(boolean network) {
        return executor(network, Shell.detect());
    }

    private LocalToolExecutor executor(boolean network, Shell shell) {
        sandbox = Sandbox.choose(Optional.of("bwrap"), BwrapSandbox.find(System.getenv("PATH"),
                BwrapSandbox.USUAL), network, () -> ProcessLimit.detect(256));
        RunShellTool tool = new RunShellTool(new ShellLimits(64 * 1024, Duration.ofSeconds(30)), shell,
                ChildEnvironment.of(List.of(), System.getenv(), false), sandbox);
        executor = new LocalToolExecutor(ToolCatalog.of(List.of(new ShellToolkit(List.of(tool)))),
                AllowedRoots.of(List.of(root)));
        return executor;
    }

    private static ToolCall call(Map<String, ?> params) {
        return new ToolCall("test", "run_shell", JSON.valueToTree(params), Duration.ofSeconds(60));
    }

    private static ToolResult run(LocalToolExecutor executor, String command) throws Exception {
        ToolOutcome outcome = executor.execute(call(Map.of("command", command)), ProgressListener.NONE)
                .outcome().get(60, TimeUnit.SECONDS);
        return outcome.result().orElseThrow(() -> new AssertionError("no result: " + outcome));
    }

    private static String out(ToolResult result) {
        return (String) result.structured().get("stdout");
    }

    @Test
    void bubblewrapIsTheDefaultAndTheModelIsToldWhatItForbids() {
        String description = new ShellToolkitProvider().create(dev.efferent.tools.spi.Settings.empty()).tools()
                .getFirst().spec().description();
        assertTrue(description.endsWith(" Commands run in a sandbox: the file system is read-only except the roots "
                + "and a private, empty /tmp; there is no network; at most 256 processes."), description);
    }

    @Test
    void aCommandWritesInsideARoot() throws Exception {
        ToolResult result = run(executor(false), "echo data > out.txt && cat out.txt && pwd");
        assertEquals(0, result.structured().get("exitCode"), result.text());
        assertEquals("data\n" + root.toRealPath() + "\n", out(result));
        assertEquals("data\n", Files.readString(root.resolve("out.txt")));
    }

    @Test
    void rmOfADirectoryOutsideTheRootsFailsAndLeavesItIntact() throws Exception {
        // Under target/, not /tmp: the sandbox's /tmp is its own, where rm would "succeed" on nothing.
        scratch = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "sandbox-scratch-");
        Files.writeString(scratch.resolve("precious.txt"), "keep me");
        ToolResult result = run(executor(false), "rm -rf " + scratch);
        assertNotEquals(0, result.structured().get("exitCode"), result.text());
        assertTrue(result.text().contains("Read-only file system"), result.text());
        assertEquals("keep me", Files.readString(scratch.resolve("precious.txt")));
    }

    @Test
    void writingToEtcFailsEvenForRootTryingToRemount() throws Exception {
        Path probe = Path.of("/etc/efferent-sandbox-probe-" + ProcessHandle.current().pid());
        try {
            // As root with capabilities left, the remount would succeed and the write reach the host's /etc.
            ToolResult result = run(executor(false), "mount -o remount,rw / 2>/dev/null; echo owned > " + probe);
            assertNotEquals(0, result.structured().get("exitCode"), result.text());
            assertTrue(result.text().contains("Read-only file system"), result.text());
            assertFalse(Files.exists(probe));
        } finally {
            Files.deleteIfExists(probe);
        }
    }

    @Test
    void kernelSettingsAreReadOnly() throws Exception {
        // Writes the current value back, so a broken sandbox changes nothing.
        ToolResult result = run(executor(false), "cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname");
        assertNotEquals(0, result.structured().get("exitCode"), result.text());
        assertTrue(result.text().contains("Read-only file system"), result.text());
    }

    @Test
    void aForkLoopIsStoppedByTheProcessLimit() throws Exception {
        // Bounded: 400 sleeps of 5s at most; the shell gives up at its first failed fork.
        long start = System.nanoTime();
        ToolResult result = run(executor(false),
                "i=0; while [ $i -lt 400 ]; do sleep 5 & i=$((i+1)); echo $i > started; done; echo all started");
        int started = Integer.parseInt(Files.readString(root.resolve("started")).strip());
        assertTrue(started < 256, "started " + started + " of 400 with a limit of 256: " + result.text());
        assertFalse(out(result).contains("all started"), result.text());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "the command did not end");
    }

    @Test
    void theNetworkIsUnreachableUnlessAllowed() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String connect = "bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort() + "' && echo connected";
            ToolResult blocked = run(executor(false), connect);
            assertNotEquals(0, blocked.structured().get("exitCode"), blocked.text());
            assertFalse(out(blocked).contains("connected"), blocked.text());
            executor.close();
            ToolResult allowed = run(executor(true), connect);
            assertEquals("connected\n", out(allowed), allowed.text());
        }
    }

    @Test
    void commandsGetNoEfferentVariablesAndCannotReadTheWorkers() throws Exception {
        ToolResult result = run(executor(false), "env; cat /proc/" + ProcessHandle.current().pid() + "/environ");
        assertFalse(result.text().contains("EFFERENT_"), result.text());
        assertFalse(result.text().contains("leak"), result.text());
    }

    @Test
    void timeoutKillsTheSandboxedTree() throws Exception {
        int marker = 1000 + ThreadLocalRandom.current().nextInt(100_000);
        ToolExecution execution = executor(false).execute(call(Map.of("command",
                "(sleep " + marker + " & wait); echo never", "timeout", 2)), ProgressListener.NONE);
        ProcessHandle sleep = findSleep(marker);
        ToolOutcome outcome = execution.outcome().get(30, TimeUnit.SECONDS);
        assertTrue(outcome.error().orElseThrow().contains("timed out after 2s and was killed with its child processes"),
                outcome.error().orElseThrow());
        assertGone(sleep);
        assertNoCgroupLeft();
    }

    @Test
    void cancelKillsTheSandboxedTree() throws Exception {
        int marker = 1000 + ThreadLocalRandom.current().nextInt(100_000);
        ToolExecution execution = executor(false).execute(call(Map.of("command",
                "(sleep " + marker + " & wait); echo never")), ProgressListener.NONE);
        ProcessHandle sleep = findSleep(marker);
        execution.cancel("cancelled by user");
        assertEquals(ToolOutcome.Status.CANCELLED, execution.outcome().get(10, TimeUnit.SECONDS).status());
        assertGone(sleep);
        assertNoCgroupLeft();
    }

    @Test
    void cancelKillsTheSandboxedTreeEvenWithoutAProcessGroup() throws Exception {
        int marker = 1000 + ThreadLocalRandom.current().nextInt(100_000);
        ToolExecution execution = executor(false, new Shell(false, Optional.empty())).execute(call(Map.of("command",
                "(sleep " + marker + " & wait); echo never")), ProgressListener.NONE);
        ProcessHandle sleep = findSleep(marker);
        execution.cancel("cancelled by user");
        assertEquals(ToolOutcome.Status.CANCELLED, execution.outcome().get(10, TimeUnit.SECONDS).status());
        assertGone(sleep);
        assertNoCgroupLeft();
    }

    @Test
    void theCommandsCgroupIsRemovedAfterIt() throws Exception {
        run(executor(false), "sleep 0.2 & true");
        assertNoCgroupLeft();
    }

    /** Root's process limit makes a cgroup per command; none may outlive its command, cancelled or not. */
    private void assertNoCgroupLeft() throws IOException, InterruptedException {
        if (!(sandbox instanceof BwrapSandbox b && b.limit() instanceof PidsCgroup cgroup)) {
            return;
        }
        List<Path> ours = List.of();
        // The outcome is reported as the call ends; the cgroup goes a moment later, once its processes are gone.
        for (int i = 0; i < 150; i++) {
            try (Stream<Path> dirs = Files.list(cgroup.parent())) {
                ours = dirs.filter(p -> p.getFileName().toString().startsWith(
                        "cmd-" + ProcessHandle.current().pid() + "-")).toList();
            }
            if (ours.isEmpty()) {
                return;
            }
            Thread.sleep(20);
        }
        fail("pids cgroups left behind: " + ours);
    }

    /** The sandbox's pids are its own; the host's view of the sleep is found by its unique argument. */
    private static ProcessHandle findSleep(int marker) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            Optional<ProcessHandle> sleep = ProcessHandle.allProcesses().filter(p -> p.info().arguments()
                    .map(a -> a.length == 1 && a[0].equals(Integer.toString(marker))).orElse(false)).findFirst();
            if (sleep.isPresent()) {
                return sleep.get();
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the sandboxed command never started sleep " + marker);
    }

    private static void assertGone(ProcessHandle process) throws InterruptedException {
        for (int i = 0; i < 250; i++) {
            if (!process.isAlive()) {
                return;
            }
            Thread.sleep(20);
        }
        process.destroyForcibly();
        throw new AssertionError("sandboxed sleep " + process.pid() + " is still alive");
    }
}
