package dev.efferent.tools.shell;

import dev.efferent.tools.spi.ToolException;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The process limit for root: a pids cgroup with {@code pids.max} per command, made under {@code efferent-shell}
 * in our own cgroup (v1's pids hierarchy, or v2 where it has the pids controller) and removed after the command.
 * Empty ones a crashed worker left behind are removed at start-up.
 */
final class PidsCgroup implements ProcessLimit {
    private static final System.Logger LOG = System.getLogger(PidsCgroup.class.getName());
    /** Moves the shell that runs it into the cgroup, then becomes bubblewrap; every child inherits the cgroup. */
    private static final String JOIN = "echo $$ > \"$1\" && shift && exec \"$@\"";
    private static final long REMOVE_MILLIS = 2000;
    /** The names {@link #open()} and {@link #create} give: "cmd-PID-START-N", "probe-PID-START" (START base 36 ms). */
    private static final Pattern OURS = Pattern.compile("(?:cmd|probe)-(\\d{1,18})-([0-9a-z]{1,12})(?:-\\d+)?");
    /** How far a process's start time, which Linux keeps to the second, may lie after the token it made. */
    private static final long START_SLACK_MILLIS = TimeUnit.SECONDS.toMillis(10);

    /** A cgroup directory of this process and the version of its hierarchy. */
    record Candidate(Path dir, boolean v2) {
    }

    private final Path parent;
    private final int max;
    private final long made = System.currentTimeMillis();
    /** Unique per JVM: a restarted worker may get the pid of one that died and left a cgroup behind. */
    private final String token = ProcessHandle.current().pid() + "-" + Long.toString(made, 36);
    private final AtomicLong commands = new AtomicLong();

    private PidsCgroup(Path parent, int max) {
        this.parent = parent;
        this.max = max;
    }

    /**
     * Makes {@code efferent-shell} under the candidate, removes what a crashed worker left in it and proves a
     * command cgroup can be made there. What it made is removed again when it fails.
     */
    static PidsCgroup create(Candidate candidate, int max) throws IOException {
        Path parent = candidate.dir().resolve("efferent-shell");
        boolean madeParent = !Files.isDirectory(parent);
        try {
            Files.createDirectories(parent);
            if (candidate.v2()) {
                // In an ancestor of our own cgroup this turns the pids controller on for a cgroup that is not ours
                // (a slice); it stays on, as the cgroups of others may have come to rely on it.
                enablePids(candidate.dir());
                enablePids(parent);
            }
            PidsCgroup cgroup = new PidsCgroup(parent, max);
            cgroup.removeStale();
            remove(cgroup.make("probe-" + cgroup.token));
            if (candidate.v2() && !holdsUs(candidate.dir())) {
                LOG.log(Level.INFO, "The pids cgroups of shell commands are made under {0}, above the cgroup of this "
                        + "process, as cgroup v2 allows no child cgroups with controllers beside processes; they are "
                        + "not part of the service this process runs in", parent);
            }
            return cgroup;
        } catch (IOException | RuntimeException e) {
            if (madeParent) {
                try {
                    Files.deleteIfExists(parent);
                } catch (IOException again) {
                    LOG.log(Level.WARNING, "Could not remove the pids cgroup " + parent + " made for shell commands "
                            + "that cannot be used; remove it with rmdir", again);
                }
            }
            throw e;
        }
    }

    /** The pids cgroups we may nest in: ours and its ancestors in cgroup v2 first, then ours in v1's pids hierarchy. */
    static List<Candidate> candidates() {
        try {
            return candidates(Files.readAllLines(Path.of("/proc/self/mounts")),
                    Files.readAllLines(Path.of("/proc/self/cgroup")));
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "No cgroups to read: {0}", e.toString());
            return List.of();
        }
    }

    static List<Candidate> candidates(List<String> mounts, List<String> ownCgroups) {
        List<Candidate> found = new ArrayList<>();
        for (String mount : mounts) {
            String[] f = mount.split(" ");
            if (f.length < 4) {
                continue;
            }
            if (f[2].equals("cgroup2")) {
                // Our own cgroup first; as it holds our process, v2 may refuse it children with controllers
                // ("no internal processes"), so then its ancestors (a systemd service's slice, say). Those lie outside
                // our service: its limits do not cover the command cgroups, and stopping it does not remove them, so
                // each is removed after its command, a crash's leftovers at the next start, and create() says at
                // INFO where they go.
                Optional<String> own = own(ownCgroups, "0", "");
                List<Candidate> v2 = new ArrayList<>();
                Path top = Path.of(f[1]);
                for (Path dir = own.map(p -> Path.of(f[1] + p)).orElse(null); dir != null && dir.startsWith(top);
                        dir = dir.getParent()) {
                    if (controllers(dir).contains("pids")) {
                        v2.add(new Candidate(dir, true));
                    }
                }
                found.addAll(0, v2);
            } else if (f[2].equals("cgroup") && List.of(f[3].split(",")).contains("pids")) {
                own(ownCgroups, null, "pids").ifPresent(p -> found.add(new Candidate(Path.of(f[1] + p), false)));
            }
        }
        return found;
    }

    @Override
    public Scope open() {
        String name = "cmd-" + token + "-" + commands.incrementAndGet();
        try {
            Path dir = make(name);
            return new Scope(List.of("/bin/sh", "-c", JOIN, "sh", dir.resolve("cgroup.procs").toString()),
                    List.of(), () -> remove(dir));
        } catch (IOException e) {
            throw new ToolException("could not make the pids cgroup " + parent.resolve(name)
                    + " that limits the command's processes: " + e + ". Nothing was run");
        }
    }

    @Override
    public String describe() {
        return "at most " + max + " processes";
    }

    @Override
    public int max() {
        return max;
    }

    /** The directory the command cgroups are made in. */
    Path parent() {
        return parent;
    }

    @Override
    public String toString() {
        return "pids.max " + max + " in a cgroup under " + parent;
    }

    /** A cgroup with {@code pids.max} set, or none: removed again when the limit cannot be written. */
    private Path make(String name) throws IOException {
        Path dir = Files.createDirectory(parent.resolve(name));
        try {
            Files.writeString(dir.resolve("pids.max"), Integer.toString(max));
            return dir;
        } catch (IOException e) {
            try {
                Files.delete(dir);
            } catch (IOException again) {
                e.addSuppressed(again);
                LOG.log(Level.WARNING, "Could not remove the pids cgroup " + dir + " whose pids.max could not be "
                        + "set; remove it with rmdir", again);
            }
            throw e;
        }
    }

    /**
     * Removes the empty cgroups of workers that are gone (killed, crashed). rmdir only: a cgroup that still has
     * processes stays, with a warning; so does every cgroup of a worker that still runs.
     */
    private void removeStale() throws IOException {
        List<Path> dirs;
        try (Stream<Path> list = Files.list(parent)) {
            dirs = list.filter(Files::isDirectory).toList();
        }
        for (Path dir : dirs) {
            Matcher name = OURS.matcher(dir.getFileName().toString());
            if (!name.matches() || ownerRuns(Long.parseLong(name.group(1)), Long.parseLong(name.group(2), 36))) {
                continue;
            }
            try {
                Files.delete(dir);
                LOG.log(Level.INFO, "Removed the pids cgroup {0} that a worker which is gone left behind", dir);
            } catch (IOException e) {
                LOG.log(Level.WARNING, "The pids cgroup {0} of a worker that is gone was left in place: {1}. Remove it "
                        + "with rmdir once its processes have ended", dir, e.toString());
            }
        }
    }

    /** Whether the process that named a cgroup with {@code pid} at {@code madeAt} may still run. */
    private static boolean ownerRuns(long pid, long madeAt) {
        if (pid == ProcessHandle.current().pid()) {
            return true;
        }
        // A process that started after the name was made only got the pid of the one that made it.
        return ProcessHandle.of(pid).map(p -> p.info().startInstant()
                .map(start -> start.toEpochMilli() <= madeAt + START_SLACK_MILLIS).orElse(true)).orElse(false);
    }

    /**
     * Kills what is left (nothing, normally: the sandbox's pid namespace dies with the command), then rmdir.
     * Gives up with a warning naming the cgroup after {@link #REMOVE_MILLIS}.
     */
    static void remove(Path dir) {
        // Runs after a cancel too, when the thread may be interrupted: the flag is put aside until the cgroup is gone.
        boolean interrupted = Thread.interrupted();
        Path kill = dir.resolve("cgroup.kill");
        try {
            long deadline = System.currentTimeMillis() + REMOVE_MILLIS;
            while (Files.exists(dir)) {
                try {
                    if (Files.exists(kill)) {
                        // cgroup v2 since Linux 5.14: the kernel kills every process in it, even one forked meanwhile.
                        Files.writeString(kill, "1");
                    } else {
                        for (String pid : Files.readAllLines(dir.resolve("cgroup.procs"))) {
                            ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
                        }
                    }
                    Files.delete(dir);
                    return;
                } catch (IOException e) {
                    if (System.currentTimeMillis() > deadline) {
                        LOG.log(Level.WARNING, "Could not remove the pids cgroup " + dir + " of a finished command; "
                                + "remove it with rmdir once its processes are gone", e);
                        return;
                    }
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void enablePids(Path dir) throws IOException {
        if (!Files.readString(dir.resolve("cgroup.subtree_control")).contains("pids")) {
            Files.writeString(dir.resolve("cgroup.subtree_control"), "+pids");
        }
    }

    /** Whether this process is in {@code dir} itself rather than below it. */
    private static boolean holdsUs(Path dir) {
        try {
            String us = Long.toString(ProcessHandle.current().pid());
            return Files.readAllLines(dir.resolve("cgroup.procs")).contains(us);
        } catch (IOException e) {
            return false;
        }
    }

    private static String controllers(Path dir) {
        try {
            return Files.readString(dir.resolve("cgroup.controllers"));
        } catch (IOException e) {
            // Our cgroup is not visible at this mount (another cgroup namespace): not a candidate.
            LOG.log(Level.DEBUG, "No cgroup.controllers in {0}: {1}", dir, e.toString());
            return "";
        }
    }

    /** Our path in a hierarchy, from /proc/self/cgroup lines "id:controllers:path". */
    private static Optional<String> own(List<String> lines, String id, String controller) {
        for (String line : lines) {
            String[] f = line.split(":", 3);
            if (f.length == 3 && (id == null || f[0].equals(id))
                    && (controller.isEmpty() ? f[1].isEmpty() : List.of(f[1].split(",")).contains(controller))) {
                return Optional.of(f[2].equals("/") ? "" : f[2]);
            }
        }
        return Optional.empty();
    }
}
