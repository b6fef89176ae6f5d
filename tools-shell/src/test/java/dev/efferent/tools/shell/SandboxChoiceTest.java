package dev.efferent.tools.shell;

import dev.efferent.tools.spi.ToolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;

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
                () -> Sandbox.withoutBubblewrap("bwrap"));
        assertEquals("setting 'tools.shell.sandbox' is bwrap, but bubblewrap was found neither on the PATH nor at "
                + "/usr/bin/bwrap: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
                + "bubblewrap; Arch: pacman -S bubblewrap), or set tools.shell.sandbox: none to run shell commands "
                + "unconfined", e.getMessage());
    }

    @Test
    void withoutBubblewrapTheDefaultIsUnconfined() {
        assertInstanceOf(Sandbox.Unconfined.class, Sandbox.withoutBubblewrap(""));
        assertInstanceOf(Sandbox.Unconfined.class, Sandbox.choose("None", Path.of("/x"),
                false, HiddenPaths.NONE, () -> RLIMIT));
    }

    @Test
    void anUnknownSandboxIsNamed() {
        ToolException e = assertThrows(ToolException.class,
                () -> Sandbox.withoutBubblewrap("docker"));
        assertEquals("setting 'tools.shell.sandbox' must be bwrap or none, got 'docker'", e.getMessage());
    }

    @Test
    void bubblewrapThatCannotRunFailsAnExplicitChoice() {
        ToolException e = assertThrows(ToolException.class,
                () -> Sandbox.choose("bwrap", Path.of("/bin/false"), false, HiddenPaths.NONE,
                        () -> RLIMIT));
        assertTrue(e.getMessage().startsWith("setting 'tools.shell.sandbox' is bwrap, but bubblewrap at /bin/false "
                + "cannot make a sandbox here: a trial run of /bin/true exited with 1"), e.getMessage());
    }

    @Test
    void theCommandLineConfinesTheCommand() {
        Path root = Path.of("/tmp/work");
        List<String> argv = new BwrapSandbox(Path.of("/usr/bin/bwrap"), false, RLIMIT, HiddenPaths.NONE)
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
        List<String> argv = new BwrapSandbox(Path.of("/usr/bin/bwrap"), true, RLIMIT, HiddenPaths.NONE)
                .prepare(List.of("true"), List.of(), Path.of("/")).argv();
        assertFalse(argv.contains("--unshare-net"), argv.toString());
    }

    @Test
    void anOrdinaryUserIsLimitedByPrlimitAndRootByACgroup() {
        assertEquals(RLIMIT, ProcessLimit.detect(64, false, List.of(Path.of("/usr/bin/prlimit")), "6.8.0",
                List.of()));
        ProcessLimit none = ProcessLimit.detect(64, false, List.of(), "6.8.0", List.of());
        assertEquals("prlimit is not installed (it comes with util-linux; install that package)",
                ((ProcessLimit.Unenforced) none).reason());
        ProcessLimit root = ProcessLimit.detect(64, true, List.of(Path.of("/usr/bin/prlimit")), "6.8.0",
                List.of());
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

    @Test
    void runIsEmptiedAndSecretsHiddenBeforeTheRootsAreBound(@TempDir Path dir) throws IOException {
        Path secrets = Files.createDirectory(dir.resolve("secrets")).toRealPath();
        Path token = Files.writeString(dir.resolve("token"), "t").toRealPath();
        Path project = Files.createDirectories(dir.resolve("project/.ssh")).getParent().toRealPath();
        Path inSecrets = Files.createDirectory(secrets.resolve("work"));
        HiddenPaths hidden = HiddenPaths.of(List.of(secrets.toString(), token.toString(),
                project.resolve(".ssh").toString(), dir.resolve("missing").toString()), Path.of("/home/ada"));
        Path underRun = Path.of("/run/user/1000/work");
        List<String> argv = new BwrapSandbox(Path.of("/usr/bin/bwrap"), false, RLIMIT, hidden)
                .prepare(List.of("true"), List.of(project, inSecrets, underRun), project).argv();
        int run = Collections.indexOfSubList(argv, List.of("--tmpfs", "/run"));
        int bindUnderRun = Collections.indexOfSubList(argv, List.of("--bind", underRun.toString(),
                underRun.toString()));
        assertTrue(run > 0 && bindUnderRun > run, "a root under /run is bound after the empty /run: " + argv);
        int hideSecrets = Collections.indexOfSubList(argv, List.of("--tmpfs", secrets.toString()));
        int bindInSecrets = Collections.indexOfSubList(argv, List.of("--bind", inSecrets.toString(),
                inSecrets.toString()));
        assertTrue(hideSecrets > 0 && bindInSecrets > hideSecrets, "a root in a hidden directory is bound after it "
                + "is hidden: " + argv);
        int bindProject = Collections.indexOfSubList(argv, List.of("--bind", project.toString(), project.toString()));
        int hideSsh = Collections.indexOfSubList(argv, List.of("--tmpfs", project.resolve(".ssh").toString()));
        assertTrue(bindProject > 0 && hideSsh > bindProject, "a hidden directory in a root is hidden after the root "
                + "is bound: " + argv);
        assertTrue(Collections.indexOfSubList(argv, List.of("--ro-bind", "/dev/null", token.toString())) > 0,
                argv.toString());
        assertFalse(String.join(" ", argv).contains("missing"), argv.toString());
        assertFalse(String.join(" ", argv).contains("/run/systemd/resolve"), "no resolver without network: " + argv);
    }

    @Test
    void withTheNetworkTheResolverIsBroughtBackButNotItsMonitor() {
        List<String> argv = new BwrapSandbox(Path.of("/usr/bin/bwrap"), true, RLIMIT, HiddenPaths.NONE)
                .prepare(List.of("true"), List.of(), Path.of("/")).argv();
        int run = Collections.indexOfSubList(argv, List.of("--tmpfs", "/run"));
        int stub = Collections.indexOfSubList(argv, List.of("--ro-bind-try", "/run/systemd/resolve/stub-resolv.conf",
                "/run/systemd/resolve/stub-resolv.conf"));
        int socket = Collections.indexOfSubList(argv, List.of("--ro-bind-try",
                "/run/systemd/resolve/io.systemd.Resolve", "/run/systemd/resolve/io.systemd.Resolve"));
        assertTrue(run > 0 && stub > run && socket > run, argv.toString());
        assertFalse(argv.contains("/run/systemd/resolve"), "not the whole directory: " + argv);
        assertFalse(String.join(" ", argv).contains("Monitor"), argv.toString());
    }

    @Test
    void theModelIsToldWhatIsHidden() {
        assertEquals(" Hidden from commands (they appear empty): /run, ~/.ssh, /srv/keys. Commands run in a sandbox: "
                + "the file system is read-only except the roots and a private, empty /tmp; there is no network; at "
                + "most 64 processes.", new BwrapSandbox(Path.of("/usr/bin/bwrap"), false, RLIMIT,
                HiddenPaths.of(List.of("~/.ssh", "/srv/keys"), Path.of("/home/ada"))).describe());
        assertTrue(new BwrapSandbox(Path.of("/usr/bin/bwrap"), true, RLIMIT, HiddenPaths.NONE).describe()
                .startsWith(" Hidden from commands (they appear empty): /run. "));
    }

    @Test
    void rlimitCountsPerUserNamespaceFromLinux514() {
        for (String release : List.of("5.14", "5.14.0-70.13.1.el9_0.x86_64", "6.18.44-fc-v782", "6.8.0-45-generic",
                "10.0.1")) {
            assertTrue(ProcessLimit.countsPerUserNamespace(release), release);
        }
        for (String release : List.of("5.13.0-1", "5.4.0-150-generic", "4.19.0-27-amd64", "3.10.0-1160.el7", "5",
                "5.", "garbage", "", "v6.1", "5.99999999999", "99999999999.1")) {
            assertFalse(ProcessLimit.countsPerUserNamespace(release), release);
        }
    }

    @Test
    void onAKernelBefore514AnOrdinaryUserGetsNoRlimitButRootStillItsCgroup() {
        ProcessLimit old = ProcessLimit.detect(64, false, List.of(Path.of("/usr/bin/prlimit")), "5.10.0-28-amd64",
                List.of());
        assertEquals("the kernel (5.10.0-28-amd64) is not Linux 5.14 or later; before 5.14 RLIMIT_NPROC counts every "
                + "process of the user, not only the sandbox's, so a limit would make forks fail for a user with many "
                + "processes. Upgrade the kernel to 5.14 or later", ((ProcessLimit.Unenforced) old).reason());
        assertEquals(RLIMIT, ProcessLimit.detect(64, false, List.of(Path.of("/usr/bin/prlimit")), "5.14.21",
                List.of()));
        ProcessLimit root = ProcessLimit.detect(64, true, List.of(Path.of("/usr/bin/prlimit")), "garbage",
                List.of());
        assertTrue(((ProcessLimit.Unenforced) root).reason().startsWith("we run as root"), root.toString());
    }
}
