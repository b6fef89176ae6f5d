package dev.efferent.tools.shell;

import dev.efferent.tools.spi.ToolException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * How many processes a sandboxed command may have at once ({@code tools.shell.max-processes}), so a fork loop
 * ends in failed forks instead of a machine out of processes. Linux offers two ways, and which one works depends
 * on who we run as:
 * <ul>
 * <li>Not root: {@code RLIMIT_NPROC}, set inside the sandbox by {@code prlimit}. Since Linux 5.14 the count is kept
 *     per user namespace, and the sandbox has its own ({@code --unshare-user}), so it counts the command's
 *     processes only, not every process of the user. Older kernels count every process of the user, so a desktop
 *     user with more processes than the limit could not fork at all in the sandbox: there it is not used.</li>
 * <li>Root: the kernel never applies {@code RLIMIT_NPROC} to uid 0, in a user namespace or not. The command goes
 *     into a fresh pids cgroup with {@code pids.max}, made per command and removed after it.</li>
 * </ul>
 * When neither works the limit is {@link Unenforced} and start-up says so once.
 */
sealed interface ProcessLimit permits ProcessLimit.Rlimit, PidsCgroup, ProcessLimit.Unenforced {
    /** "major.minor" at the start of a kernel release. */
    Pattern RELEASE = Pattern.compile("(\\d{1,9})\\.(\\d{1,9})(?!\\d)");

    /** Limits one command; close the scope once the command and everything it started are gone. */
    Scope open();

    /** A short phrase for the tool's description, e.g. "at most 256 processes". */
    String describe();

    /** The processes allowed at once, enforced or not. */
    int max();

    /**
     * What one command needs.
     *
     * @param outside argv put before bubblewrap, run outside the sandbox
     * @param inside  argv put before the shell, run inside the sandbox
     * @param cleanup what to do after the command
     */
    record Scope(List<String> outside, List<String> inside, Runnable cleanup) implements AutoCloseable {
        static final Scope NONE = new Scope(List.of(), List.of(), () -> { });

        @Override
        public void close() {
            cleanup.run();
        }
    }

    /** The limit that works on this machine, for the user we run as. */
    static ProcessLimit detect(int max) {
        List<Path> prlimit = Stream.of("/usr/bin/prlimit", "/bin/prlimit").map(Path::of)
                .filter(Files::isExecutable).limit(1).toList();
        boolean root = isRoot();
        return detect(max, root, prlimit, kernelRelease(), root ? PidsCgroup.candidates() : List.of());
    }

    /**
     * The limit that works here.
     *
     * @param max     processes allowed at once, the sandbox's own two included
     * @param root    whether we run as uid 0
     * @param prlimit util-linux's {@code prlimit} where installed (the first is used), else empty
     * @param kernel  the kernel's release, e.g. {@code "6.8.0-45-generic"}
     * @param cgroups pids cgroups we could nest in, best first ({@link PidsCgroup#candidates()} outside tests)
     */
    static ProcessLimit detect(int max, boolean root, List<Path> prlimit, String kernel,
            List<PidsCgroup.Candidate> cgroups) {
        if (!root) {
            if (!countsPerUserNamespace(kernel)) {
                return new Unenforced(max, "the kernel (" + kernel + ") is not Linux 5.14 or later; before 5.14 "
                        + "RLIMIT_NPROC counts every process of the user, not only the sandbox's, so a limit would "
                        + "make forks fail for a user with many processes. Upgrade the kernel to 5.14 or later");
            }
            return prlimit.isEmpty() ? new Unenforced(max,
                    "prlimit is not installed (it comes with util-linux; install that package)")
                    : new Rlimit(prlimit.get(0), max);
        }
        List<String> failures = new ArrayList<>();
        for (PidsCgroup.Candidate candidate : cgroups) {
            try {
                return PidsCgroup.create(candidate, max);
            } catch (IOException | RuntimeException e) {
                failures.add(candidate.dir() + ": " + e);
            }
        }
        if (cgroups.isEmpty()) {
            failures.add("no cgroup file system with the pids controller is mounted");
        }
        return new Unenforced(max, "we run as root, for whom the kernel ignores RLIMIT_NPROC, and no pids cgroup "
                + "could be made (" + String.join("; ", failures) + "). Mount a writable pids cgroup, or run as an "
                + "ordinary user");
    }

    /**
     * Whether the kernel counts RLIMIT_NPROC per user namespace: Linux 5.14 or later. A release that does not start
     * with "major.minor" counts as older, so the limit is reported unenforced rather than made to break forks.
     */
    static boolean countsPerUserNamespace(String release) {
        Matcher version = RELEASE.matcher(release.strip());
        if (!version.lookingAt()) {
            return false;
        }
        int major = Integer.parseInt(version.group(1));
        int minor = Integer.parseInt(version.group(2));
        return major > 5 || (major == 5 && minor >= 14);
    }

    /** The running kernel's release, from /proc, else from the JVM (which read it from uname at start). */
    private static String kernelRelease() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        } catch (IOException e) {
            return System.getProperty("os.version", "");
        }
    }

    /** Whether we run as uid 0, from /proc/self/status ("Uid: real effective saved fs"). */
    private static boolean isRoot() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
                    .findFirst().map(l -> l.split("\\s+")[2].equals("0")).orElse(false);
        } catch (IOException e) {
            throw new ToolException("cannot tell whether the worker runs as root, which decides how "
                    + "tools.shell.max-processes is enforced: reading /proc/self/status failed: " + e);
        }
    }

    /** {@code RLIMIT_NPROC} inside the sandbox's own user namespace, for an ordinary user. */
    record Rlimit(Path prlimit, int max) implements ProcessLimit {
        @Override
        public Scope open() {
            return new Scope(List.of(), List.of(prlimit.toString(), "--nproc=" + max), () -> { });
        }

        @Override
        public String toString() {
            return "RLIMIT_NPROC " + max + " set by " + prlimit;
        }

        @Override
        public String describe() {
            return "at most " + max + " processes";
        }
    }

    /** No way to limit processes here; said once at start-up. */
    record Unenforced(int max, String reason) implements ProcessLimit {
        @Override
        public Scope open() {
            return Scope.NONE;
        }

        @Override
        public String toString() {
            return "none";
        }

        @Override
        public String describe() {
            return "";
        }
    }
}
