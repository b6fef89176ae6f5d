package dev.efferent.tools.shell;

import dev.efferent.tools.spi.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Choosing the sandbox, its command line and the process limit, without running anything. */
class SandboxChoiceTest {
    private static final ProcessLimit RLIMIT = new ProcessLimit.Rlimit(Path.of("/usr/bin/prlimit"), 64);

    @Test
    void explicitBwrapWithoutBubblewrapFailsStartUp() {
        ToolException e = assertThrows(ToolException.class,
                () -> Sandbox.choose(Optional.of("bwrap"), Optional.empty(), false, () -> RLIMIT));
        assertEquals("setting 'tools.shell.sandbox' is bwrap, but bubblewrap was found neither on the PATH nor at "
                + "/usr/bin/bwrap: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
                + "bubblewrap; Arch: pacman -S bubblewrap), or set tools.shell.sandbox: none to run shell commands "
                + "unconfined", e.getMessage());
    }

    @Test
    void withoutBubblewrapTheDefaultIsUnconfined() {
        assertInstanceOf(Sandbox.Unconfined.class, Sandbox.choose(Optional.empty(), Optional.empty(), false,
                () -> RLIMIT));
        assertInstanceOf(Sandbox.Unconfined.class, Sandbox.choose(Optional.of("None"), Optional.of(Path.of("/x")),
                false, () -> RLIMIT));
    }

    @Test
    void anUnknownSandboxIsNamed() {
        ToolException e = assertThrows(ToolException.class,
                () -> Sandbox.choose(Optional.of("docker"), Optional.empty(), false, () -> RLIMIT));
        assertEquals("setting 'tools.shell.sandbox' must be bwrap or none, got 'docker'", e.getMessage());
    }

    @Test
    void bubblewrapThatCannotRunFailsAnExplicitChoice() {
        ToolException e = assertThrows(ToolException.class,
                () -> Sandbox.choose(Optional.of("bwrap"), Optional.of(Path.of("/bin/false")), false, () -> RLIMIT));
        assertTrue(e.getMessage().startsWith("setting 'tools.shell.sandbox' is bwrap, but bubblewrap at /bin/false "
                + "cannot make a sandbox here: a trial run of /bin/true exited with 1"), e.getMessage());
    }

    @Test
    void theCommandLineConfinesTheCommand() {
        Path root = Path.of("/tmp/work");
        List<String> argv = new BwrapSandbox(Path.of("/usr/bin/bwrap"), false, RLIMIT)
                .prepare(List.of("/bin/sh", "-c", "make"), List.of(root, Path.of("/srv/data")), root.resolve("src"))
                .argv();
        assertEquals("/usr/bin/bwrap", argv.getFirst());
        assertTrue(Collections.indexOfSubList(argv, List.of("--ro-bind", "/", "/")) > 0, argv.toString());
        int tmp = Collections.indexOfSubList(argv, List.of("--tmpfs", "/tmp"));
        int bind = Collections.indexOfSubList(argv, List.of("--bind", "/tmp/work", "/tmp/work"));
        assertTrue(tmp > 0 && bind > tmp, "a root under /tmp is bound after the private /tmp: " + argv);
        assertTrue(Collections.indexOfSubList(argv, List.of("--bind", "/srv/data", "/srv/data")) > 0, argv.toString());
        assertTrue(Collections.indexOfSubList(argv, List.of("--chdir", "/tmp/work/src")) > 0, argv.toString());
        assertTrue(argv.containsAll(List.of("--unshare-user", "--unshare-pid", "--unshare-net", "--cap-drop",
                "--die-with-parent", "--new-session")), argv.toString());
        assertEquals(List.of("--", "/usr/bin/prlimit", "--nproc=64", "/bin/sh", "-c", "make"),
                argv.subList(argv.indexOf("--"), argv.size()));
    }

    @Test
    void networkTrueKeepsTheNetwork() {
        List<String> argv = new BwrapSandbox(Path.of("/usr/bin/bwrap"), true, RLIMIT)
                .prepare(List.of("true"), List.of(), Path.of("/")).argv();
        assertFalse(argv.contains("--unshare-net"), argv.toString());
    }

    @Test
    void anOrdinaryUserIsLimitedByPrlimitAndRootByACgroup() {
        assertEquals(RLIMIT, ProcessLimit.detect(64, false, Optional.of(Path.of("/usr/bin/prlimit")), List.of()));
        ProcessLimit none = ProcessLimit.detect(64, false, Optional.empty(), List.of());
        assertEquals("prlimit is not installed (it comes with util-linux; install that package)",
                ((ProcessLimit.Unenforced) none).reason());
        ProcessLimit root = ProcessLimit.detect(64, true, Optional.of(Path.of("/usr/bin/prlimit")), List.of());
        assertTrue(((ProcessLimit.Unenforced) root).reason().startsWith("we run as root, for whom the kernel "
                + "ignores RLIMIT_NPROC, and no pids cgroup could be made (no cgroup file system with the pids "
                + "controller is mounted)"), root.toString());
    }

    @Test
    void inCgroupV2OurCgroupAndItsAncestorsWithPidsAreCandidates(@TempDir Path mount) throws IOException {
        Path service = Files.createDirectories(mount.resolve("system.slice/worker.service"));
        Files.writeString(service.resolve("cgroup.controllers"), "memory pids\n");
        Files.writeString(service.getParent().resolve("cgroup.controllers"), "cpu memory pids\n");
        Files.writeString(mount.resolve("cgroup.controllers"), "cpu memory\n");
        assertEquals(List.of(new PidsCgroup.Candidate(service, true), new PidsCgroup.Candidate(service.getParent(),
                true)), PidsCgroup.candidates(List.of("cgroup2 " + mount + " cgroup2 rw,nosuid 0 0"),
                List.of("0::/system.slice/worker.service")));
    }

    @Test
    void pidsCgroupsAreFoundInTheMountsAndOurOwnCgroups() {
        List<String> mounts = List.of("cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0",
                "cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0",
                "cgroup2 /nonexistent/unified cgroup2 rw,relatime 0 0");
        List<String> own = List.of("8:pids:/worker.service", "1:cpu:/", "0::/");
        assertEquals(List.of(new PidsCgroup.Candidate(Path.of("/sys/fs/cgroup/pids/worker.service"),
                false)), PidsCgroup.candidates(mounts, own));
    }
}
