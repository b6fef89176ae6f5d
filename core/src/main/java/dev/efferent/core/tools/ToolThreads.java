package dev.efferent.core.tools;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads tool calls run on, and the calls that outlive their end.
 *
 * <p>Each call gets a platform thread of its own, never a virtual one. A virtual thread that spins (a backtracking
 * regular expression) or blocks in native code (opening a FIFO) keeps its carrier, and there are only as many
 * carriers as cores: two such calls on two cores stopped every virtual thread of the brain, so Helidon's requests,
 * WebSockets and the router with them. A platform thread is time-sliced by the operating system like any other.
 * A call has its thread to itself until its tool returns; then the thread waits up to {@link #IDLE} for the next
 * call, so that a busy worker does not pay for a new thread on every call (a clone, the page faults of a fresh
 * stack and, at its end, a flush of every core's address translations: a sixth of a worker's CPU under load). There
 * is no fixed number of threads, so a stuck tool never takes one from the others: the only bound is the caller's
 * concurrency slots ({@link TaskRunner}), and a call keeps its slot until its tool has really returned
 * ({@link ToolExecution#released()}), so stuck calls cannot pile up threads. The threads are daemons, so a stuck one
 * never keeps the process from exiting. A reused thread keeps what a tool left in its thread-locals: tools must not
 * rely on a fresh thread (docs/plugins.md).
 *
 * <p>A call that timed out or was cancelled while its tool kept running is reported once its tool has not returned
 * for {@code firstWarning}, naming the tool and how long it has been stuck, then at most every {@code warningEvery}.
 */
final class ToolThreads {
    private static final System.Logger LOG = System.getLogger(ToolThreads.class.getName());

    /** How long a thread whose tool returned waits for another call before it ends. */
    static final Duration IDLE = Duration.ofSeconds(10);

    private final Set<Thread> live = ConcurrentHashMap.newKeySet();
    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE.toMillis(),
            TimeUnit.MILLISECONDS, new SynchronousQueue<>(), Thread.ofPlatform().name("efferent-tool-", 1).daemon()
            .inheritInheritableThreadLocals(false).factory());
    private final ScheduledExecutorService timer;
    private final Clock clock;
    private final Duration firstWarning;
    private final Duration warningEvery;

    ToolThreads(ScheduledExecutorService timer, Clock clock, Duration firstWarning, Duration warningEvery) {
        this.timer = timer;
        this.clock = clock;
        this.firstWarning = firstWarning;
        this.warningEvery = warningEvery;
    }

    /**
     * Runs {@code body} for {@code call} on a thread of its own (an idle one, or a new one); {@code call} is released
     * when it ends.
     *
     * @throws IllegalStateException if no thread could be started (the process is out of threads, or closed)
     */
    void start(RunningCall call, String tool, Runnable body) {
        Runnable named = () -> {
            Thread thread = Thread.currentThread();
            String idle = thread.getName();
            ClassLoader loader = thread.getContextClassLoader();
            try {
                // Named for its call while it runs it: a thread dump says which.
                thread.setName("efferent-tool-" + tool + "-" + call.taskId());
                live.add(thread);
                body.run();
            } finally {
                call.release();
                live.remove(thread);
                // What a tool may have changed on its thread goes back before the next call.
                thread.setName(idle);
                thread.setContextClassLoader(loader);
                thread.setPriority(Thread.NORM_PRIORITY);
                thread.setUncaughtExceptionHandler(null);
            }
        };
        try {
            pool.execute(named);
        } catch (OutOfMemoryError | RejectedExecutionException e) {
            call.release();
            throw new IllegalStateException("cannot start a thread for " + tool + ": " + e.getMessage(), e);
        }
    }

    /** {@code call} has ended ({@code why}); if its tool has not returned, warns while it does not. */
    void watch(RunningCall call, String tool, String why) {
        if (call.released().isDone()) {
            return;
        }
        Instant ended = clock.instant();
        schedule(() -> check(call, tool, why, ended, true), firstWarning);
    }

    private void check(RunningCall call, String tool, String why, Instant ended, boolean first) {
        if (call.released().isDone()) {
            return;
        }
        String stuck = DurationText.of(rounded(Duration.between(ended, clock.instant())));
        if (first) {
            LOG.log(Level.WARNING, "Tool ''{0}'' (task {1}) is stuck: it has not returned {2} after its call ended "
                    + "({3}). It ignores interrupts or is blocked in native code; its thread keeps one of the "
                    + "concurrency slots until it returns, and only a restart frees it sooner.", tool, call.taskId(),
                    stuck, why);
            call.released().thenRun(() -> LOG.log(Level.INFO, "Tool ''{0}'' (task {1}) returned at last, {2} after "
                    + "its call ended; its slot is free again", tool, call.taskId(),
                    DurationText.of(rounded(Duration.between(ended, clock.instant())))));
        } else {
            LOG.log(Level.WARNING, "Tool ''{0}'' (task {1}) is still stuck, {2} after its call ended ({3}), and "
                    + "holds a concurrency slot", tool, call.taskId(), stuck, why);
        }
        schedule(() -> check(call, tool, why, ended, false), warningEvery);
    }

    private void schedule(Runnable check, Duration delay) {
        try {
            timer.schedule(check, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // Closed: nothing is watched any more.
        }
    }

    /** Threads running tool code now. */
    List<Thread> live() {
        return List.copyOf(live);
    }

    /**
     * Interrupts every tool thread and waits for them at most {@code wait}; those still running are named and left
     * behind (they are daemons).
     */
    void close(Duration wait) {
        // First, so that a thread whose tool returns ends (the join below sees it) rather than waits for more calls.
        pool.shutdown();
        List<Thread> threads = live();
        threads.forEach(Thread::interrupt);
        long end = System.nanoTime() + wait.toNanos();
        for (Thread t : threads) {
            long left = end - System.nanoTime();
            try {
                if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<String> left = live().stream().map(Thread::getName).sorted().toList();
        if (!left.isEmpty()) {
            LOG.log(Level.WARNING, "Closing with {0} tool threads still running after {1}: {2}; they are daemon "
                    + "threads and end with the process", left.size(), DurationText.of(wait), left);
        }
    }

    /** Whole seconds from a second on, so a message reads {@code 65s} rather than {@code 65042ms}. */
    private static Duration rounded(Duration d) {
        return d.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofMillis(d.toMillis()) : Duration.ofSeconds(d.toSeconds());
    }
}
