package dev.efferent.worker;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Commands the worker's tools started, written down in {@code <state-dir>/processes} while tasks run, so that a
 * worker process that is killed (SIGKILL, an out-of-memory kill, a crash) does not leave them running
 * unsupervised: the next worker process on the same state directory kills those still alive.
 *
 * <p>The tools do not hand their processes to the worker, so the worker looks at its own descendants: every
 * 200 ms during the first seconds of a task, every 2 s after that (each look reads the process table). A
 * command started and orphaned within one such gap is missed. A recorded process counts as still running only
 * if the process with its pid started at the same instant, so a reused pid is never killed. Commands under
 * bubblewrap die with the worker anyway ({@code --die-with-parent}); this covers unconfined commands, and any
 * tool that starts processes.
 */
final class ChildProcesses implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChildProcesses.class.getName());
    static final String FILE = "processes";
    private static final long TICK_MS = 200;
    private static final long FAST_FOR_NANOS = TimeUnit.SECONDS.toNanos(3);
    private static final long SLOW_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** Start instants are derived from the boot time, which two JVMs may read a second apart. */
    private static final Duration SAME_START = Duration.ofSeconds(2);
    private static final Duration KILL_WAIT = Duration.ofSeconds(2);

    private final Path file;
    private final BooleanSupplier busy;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-child-processes").daemon().factory());
    private volatile long fastUntilNanos = System.nanoTime();
    // Touched only on the timer thread.
    private Set<Recorded> recorded = Set.of();
    private long lastLookNanos;
    private boolean writeFailed;

    /**
     * @param stateDir the worker's state directory
     * @param busy     whether tasks are running (the process table is read only then, and while any recorded
     *                 process remains)
     */
    ChildProcesses(Path stateDir, BooleanSupplier busy) {
        this.file = stateDir.resolve(FILE);
        this.busy = busy;
    }

    /**
     * Kills the commands a previous worker process on this state directory left running, and takes the file
     * over. Leaves them alone if that worker process is still alive.
     *
     * @return how many commands (process trees started directly by the previous worker) were killed
     */
    int killLeftovers() {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            lines = List.of();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Cannot read " + file + ": commands a killed worker left running are not "
                    + "stopped", e);
            lines = List.of();
        }
        Optional<Recorded> previous = lines.stream().filter(l -> l.startsWith("worker ")).findFirst()
                .flatMap(l -> Recorded.parse(l.substring("worker ".length())));
        if (previous.isPresent() && previous.get().pid() != ProcessHandle.current().pid()
                && previous.get().live().isPresent()) {
            LOG.log(Level.WARNING, "Another worker process (pid {0}) uses the state directory {1}; give each worker "
                    + "a state directory of its own (--state-dir)", String.valueOf(previous.get().pid()),
                    file.getParent());
            return 0;
        }
        // Per command (the worker's child it descends from): its processes still running, and their programs.
        Map<Long, List<ProcessHandle>> alive = new LinkedHashMap<>();
        Map<Long, Set<String>> programs = new LinkedHashMap<>();
        lines.stream().filter(l -> l.startsWith("process ")).map(l -> Recorded.parse(l.substring("process ".length())))
                .flatMap(Optional::stream)
                .forEach(r -> r.live().ifPresent(h -> {
                    alive.computeIfAbsent(r.root(), k -> new ArrayList<>()).add(h);
                    programs.computeIfAbsent(r.root(), k -> new LinkedHashSet<>()).add(r.command());
                }));
        alive.forEach(ChildProcesses::killTree);
        if (!alive.isEmpty()) {
            LOG.log(Level.WARNING, "Killed {0} left running by the previous worker process (pid {1}): {2}",
                    alive.size() == 1 ? "1 command" : alive.size() + " commands",
                    previous.map(p -> String.valueOf(p.pid())).orElse("unknown"),
                    programs.entrySet().stream().map(e -> "pid " + e.getKey() + " " + String.join(" > ", e.getValue()))
                            .collect(Collectors.joining(", ")));
        }
        save(Set.of());
        return alive.size();
    }

    /** Starts watching the worker's descendants. */
    void start() {
        timer.scheduleWithFixedDelay(this::look, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    }

    /** A task is starting: look closely for the next seconds, when its command appears. */
    void taskStarting() {
        fastUntilNanos = System.nanoTime() + FAST_FOR_NANOS;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private void look() {
        long now = System.nanoTime();
        boolean due = now - fastUntilNanos < 0
                || ((!recorded.isEmpty() || busy.getAsBoolean()) && now - lastLookNanos >= SLOW_NANOS);
        if (!due) {
            return;
        }
        lastLookNanos = now;
        try {
            Set<Recorded> seen = descendants();
            if (!seen.equals(recorded) && save(seen)) {
                recorded = seen;
            }
        } catch (RuntimeException e) {
            // An escape would end the schedule: commands would go unrecorded without a word.
            LOG.log(Level.WARNING, "Looking at the worker's child processes failed; trying again", e);
        }
    }

    private static Set<Recorded> descendants() {
        ProcessHandle self = ProcessHandle.current();
        Set<Recorded> seen = new LinkedHashSet<>();
        self.descendants().forEach(h -> h.info().startInstant().ifPresent(start -> seen.add(
                new Recorded(h.pid(), start, root(h, self.pid()), h.info().command().orElse("?")))));
        return seen;
    }

    /** The worker's child that {@code h} descends from. */
    private static long root(ProcessHandle h, long self) {
        ProcessHandle p = h;
        for (int depth = 0; depth < 100; depth++) {
            Optional<ProcessHandle> parent = p.parent();
            if (parent.isEmpty() || parent.get().pid() == self) {
                return p.pid();
            }
            p = parent.get();
        }
        return h.pid();
    }

    private boolean save(Set<Recorded> processes) {
        ProcessHandle self = ProcessHandle.current();
        StringBuilder text = new StringBuilder("# Processes started by the worker with pid ").append(self.pid())
                .append(", killed by the next worker process if this one dies: pid, start, command's pid, program\n");
        self.info().startInstant().ifPresent(start -> text.append("worker ")
                .append(new Recorded(self.pid(), start, self.pid(), self.info().command().orElse("?")).line()));
        processes.forEach(r -> text.append("process ").append(r.line()));
        try {
            StateFiles.write(file, text.toString());
            writeFailed = false;
            return true;
        } catch (IOException e) {
            if (!writeFailed) {
                LOG.log(Level.WARNING, "Cannot write " + file + ": if this worker process is killed, the commands "
                        + "it runs keep running", e);
            }
            writeFailed = true;
            return false;
        }
    }

    private static void killTree(long root, List<ProcessHandle> recorded) {
        List<ProcessHandle> all = new ArrayList<>(recorded);
        recorded.forEach(h -> h.descendants().forEach(all::add));
        if (recorded.stream().anyMatch(h -> h.pid() == root)) {
            // The command leads a process group of its own (run_shell starts it under setsid): the group also
            // holds processes whose parent has exited since.
            killGroup(root);
        }
        all.forEach(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + KILL_WAIT.toNanos();
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException e) {
                LOG.log(Level.WARNING, "Process {0} left by the previous worker did not end within {1} ms of SIGKILL",
                        String.valueOf(h.pid()), KILL_WAIT.toMillis());
            }
        }
    }

    private static void killGroup(long pgid) {
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
            return;
        }
        try {
            ProcessBuilder kill = new ProcessBuilder("kill", "-KILL", "--", "-" + pgid)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            kill.environment().keySet().retainAll(Set.of("PATH"));
            Process p = kill.start();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Could not run kill for process group " + pgid + "; killing its processes one "
                    + "by one", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One process as written down: {@code pid start root program}.
     *
     * @param root    the pid of the worker's child it descends from (itself, for a child)
     * @param command the program, as far as the platform tells
     */
    record Recorded(long pid, Instant start, long root, String command) {
        String line() {
            return pid + " " + start + " " + root + " " + command.replace('\n', ' ') + "\n";
        }

        static Optional<Recorded> parse(String line) {
            String[] f = line.strip().split(" ", 4);
            try {
                return Optional.of(new Recorded(Long.parseLong(f[0]), Instant.parse(f[1]), Long.parseLong(f[2]),
                        f.length > 3 ? f[3] : "?"));
            } catch (ArrayIndexOutOfBoundsException | NumberFormatException | DateTimeParseException e) {
                LOG.log(Level.WARNING, "Ignored a malformed line in the worker''s process list: {0}", line);
                return Optional.empty();
            }
        }

        /** The process, if it is still running: same pid, started at the same instant. */
        Optional<ProcessHandle> live() {
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(h -> h.info().startInstant()
                    .map(s -> Duration.between(s, start).abs().compareTo(SAME_START) <= 0).orElse(false));
        }
    }
}
