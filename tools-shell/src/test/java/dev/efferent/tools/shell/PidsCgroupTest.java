package dev.efferent.tools.shell;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Root's pids cgroups, on the machine's real cgroup file system: what a crashed worker left is cleared, a failure
 * leaves nothing, and removal kills what is left. Skipped where no pids cgroup can be made (not root, or none
 * mounted writable), as the limit then is not a cgroup either.
 */
class PidsCgroupTest {
    /** Beyond the largest pid Linux hands out (2^22), so never a running process. */
    private static final long GONE_PID = 2_147_483_647L;

    private final List<Path> made = new ArrayList<>();
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void cleanUp() throws IOException {
        started.forEach(Process::destroyForcibly);
        for (Path dir : made.reversed()) {
            if (Files.exists(dir)) {
                PidsCgroup.remove(dir);
            }
        }
    }

    /** A pids cgroup limit with {@code max} made where the machine allows one; skips the test where none can be. */
    static PidsCgroup cgroup(int max) {
        try {
            return PidsCgroup.create(candidate(), max);
        } catch (IOException e) {
            throw new AssertionError("the candidate that worked a moment ago fails: " + e, e);
        }
    }

    /** The first cgroup a limit can be made in, as {@link ProcessLimit#detect} picks it. */
    static PidsCgroup.Candidate candidate() {
        requireHere(ProcessLimit.detect(64) instanceof PidsCgroup, "no pids cgroup can be made here (not root?)");
        for (PidsCgroup.Candidate candidate : PidsCgroup.candidates()) {
            try {
                PidsCgroup.create(candidate, 64);
                return candidate;
            } catch (IOException | RuntimeException e) {
                // The next one, as detect() does.
            }
        }
        throw new AssertionError("detect() made a pids cgroup, but no candidate works now");
    }

    private Path mkdir(Path dir) throws IOException {
        made.add(Files.createDirectory(dir));
        return dir;
    }

    private Process sleep() throws IOException {
        Process sleep = new ProcessBuilder("sleep", "300").start();
        started.add(sleep);
        return sleep;
    }

    @Test
    void cgroupsLeftByAWorkerThatIsGoneAreRemovedAndOthersKept() throws IOException {
        Path parent = cgroup(64).parent();
        String stamp = Long.toString(System.currentTimeMillis(), 36);
        Path crashed = mkdir(parent.resolve("cmd-" + GONE_PID + "-" + stamp + "-7"));
        Path crashedProbe = mkdir(parent.resolve("probe-" + GONE_PID + "-" + stamp));
        // The pid was given again to a process that started long after the cgroup was named: not its owner.
        Process younger = sleep();
        Path reused = mkdir(parent.resolve("cmd-" + younger.pid() + "-" + Long.toString(1_000_000L, 36) + "-1"));
        // Another worker that runs (its start lies before the name's time): its cgroups are in use.
        Process running = sleep();
        Path otherWorkers = mkdir(parent.resolve("cmd-" + running.pid() + "-"
                + Long.toString(System.currentTimeMillis() + 60_000, 36) + "-1"));
        Path ours = mkdir(parent.resolve("cmd-" + ProcessHandle.current().pid() + "-" + stamp + "-99"));
        Path foreign = mkdir(parent.resolve("someone-elses"));

        cgroup(64);

        assertFalse(Files.exists(crashed), crashed.toString());
        assertFalse(Files.exists(crashedProbe), crashedProbe.toString());
        assertFalse(Files.exists(reused), reused.toString());
        assertTrue(Files.isDirectory(otherWorkers), otherWorkers.toString());
        assertTrue(Files.isDirectory(ours), ours.toString());
        assertTrue(Files.isDirectory(foreign), foreign.toString());
    }

    @Test
    void aLeftCgroupThatStillHasProcessesIsLeftInPlace() throws IOException {
        Path parent = cgroup(64).parent();
        Path busy = mkdir(parent.resolve("cmd-" + GONE_PID + "-" + Long.toString(System.currentTimeMillis(), 36)
                + "-3"));
        Process sleep = sleep();
        Files.writeString(busy.resolve("cgroup.procs"), Long.toString(sleep.pid()));

        cgroup(64);

        assertTrue(Files.isDirectory(busy), "rmdir only: " + busy);
        assertTrue(sleep.isAlive(), "a stale cgroup's processes are not killed at start-up");
    }

    @Test
    void aLimitTheKernelRefusesLeavesNoCgroupBehind() throws IOException {
        PidsCgroup.Candidate candidate = candidate();
        Path parent = candidate.dir().resolve("efferent-shell");
        String probes = "probe-" + ProcessHandle.current().pid() + "-";
        List<Path> before = list(parent, probes);
        // pids.max takes a number from 0 or "max": -1 is refused after the cgroup was made.
        assertThrows(IOException.class, () -> PidsCgroup.create(candidate, -1));
        assertTrue(list(parent, probes).equals(before), "a probe cgroup was left: " + list(parent, probes));
    }

    @Test
    void removalKillsWhatIsLeftAndRemovesTheCgroup() throws Exception {
        PidsCgroup limit = cgroup(64);
        ProcessLimit.Scope scope = limit.open();
        Path procs = Path.of(scope.outside().getLast());
        Process sleep = sleep();
        Files.writeString(procs, Long.toString(sleep.pid()));

        scope.close();

        assertTrue(sleep.waitFor(5, TimeUnit.SECONDS), "the process left in the cgroup was killed");
        assertFalse(Files.exists(procs.getParent()), procs.getParent().toString());
    }

    @Test
    void removalUsesCgroupKillInCgroupV2() throws Exception {
        requireHere(ProcessLimit.detect(64) instanceof PidsCgroup, "no pids cgroup can be made here (not root?)");
        // Our own cgroup in the v2 hierarchy, with or without the pids controller: cgroup.kill is in every one.
        Optional<String> mount = Files.readAllLines(Path.of("/proc/self/mounts")).stream().map(l -> l.split(" "))
                .filter(f -> f.length > 2 && f[2].equals("cgroup2")).map(f -> f[1]).findFirst();
        Optional<String> own = Files.readAllLines(Path.of("/proc/self/cgroup")).stream()
                .filter(l -> l.startsWith("0::")).map(l -> l.substring(3)).findFirst();
        requireHere(mount.isPresent() && own.isPresent(), "no cgroup v2 here");
        Path v2 = Path.of(mount.get() + (own.get().equals("/") ? "" : own.get()));
        requireHere(Files.isWritable(v2), "our cgroup v2 " + v2 + " is not writable");
        Path dir = mkdir(v2.resolve("efferent-test-" + UUID.randomUUID()));
        requireHere(Files.exists(dir.resolve("cgroup.kill")), "cgroup v2 without cgroup.kill (Linux before 5.14)");
        Process sleep = sleep();
        Files.writeString(dir.resolve("cgroup.procs"), Long.toString(sleep.pid()));

        PidsCgroup.remove(dir);

        assertTrue(sleep.waitFor(5, TimeUnit.SECONDS), "cgroup.kill killed the process");
        assertFalse(Files.exists(dir), dir.toString());
    }

    private static List<Path> list(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)).sorted().toList();
        }
    }

    /** Skips where the machine lacks what the test needs, but never in CI (CI=true), where every test must run. */
    private static void requireHere(boolean condition, String what) {
        if (!condition && "true".equals(System.getenv("CI"))) {
            Assertions.fail(what + "; with CI=true this test must run");
        }
        Assumptions.assumeTrue(condition, what);
    }
}
