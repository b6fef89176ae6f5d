package dev.efferent.tools.shell;

import dev.efferent.tools.spi.ToolException;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process limit for root: a pids cgroup with {@code pids.max} per command, made under {@code efferent-shell}
 * in our own cgroup (v1's pids hierarchy, or v2 where it has the pids controller) and removed after the command.
 */
final class PidsCgroup implements ProcessLimit {
    private static final System.Logger LOG = System.getLogger(PidsCgroup.class.getName());
    /** Moves the shell that runs it into the cgroup, then becomes bubblewrap; every child inherits the cgroup. */
    private static final String JOIN = "echo $$ > \"$1\" && shift && exec \"$@\"";
    private static final long REMOVE_MILLIS = 2000;

    /** A cgroup directory of this process and the version of its hierarchy. */
    record Candidate(Path dir, boolean v2) {
    }

    private final Path parent;
    private final int max;
    /** Unique per JVM: a restarted worker may get the pid of one that died and left a cgroup behind. */
    private final String token = ProcessHandle.current().pid() + "-" + Long.toString(System.currentTimeMillis(), 36);
    private final AtomicLong commands = new AtomicLong();

    private PidsCgroup(Path parent, int max) {
        this.parent = parent;
        this.max = max;
    }

    /** Makes {@code efferent-shell} under the candidate and proves a command cgroup can be made in it. */
    static PidsCgroup create(Candidate candidate, int max) throws IOException {
        Path parent = candidate.dir().resolve("efferent-shell");
        Files.createDirectories(parent);
        if (candidate.v2()) {
            enablePids(candidate.dir());
            enablePids(parent);
        }
        PidsCgroup cgroup = new PidsCgroup(parent, max);
        cgroup.remove(cgroup.make("probe-" + cgroup.token));
        return cgroup;
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
                // ("no internal processes"), so then its ancestors (a systemd service's slice, say).
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

    /** The directory the command cgroups are made in. */
    Path parent() {
        return parent;
    }

    @Override
    public String toString() {
        return "pids.max " + max + " in a cgroup under " + parent;
    }

    private Path make(String name) throws IOException {
        Path dir = Files.createDirectory(parent.resolve(name));
        Files.writeString(dir.resolve("pids.max"), Integer.toString(max));
        return dir;
    }

    /** Kills what is left (nothing, normally: the sandbox's pid namespace dies with the command), then rmdir. */
    private void remove(Path dir) {
        // Runs after a cancel too, when the thread may be interrupted: the flag is put aside until the cgroup is gone.
        boolean interrupted = Thread.interrupted();
        try {
            long deadline = System.currentTimeMillis() + REMOVE_MILLIS;
            while (true) {
                try {
                    for (String pid : Files.readAllLines(dir.resolve("cgroup.procs"))) {
                        ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
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
