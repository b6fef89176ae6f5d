package dev.efferent.router;

import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * Stores workers' acceptances ({@code CLAIMED → RUNNING}) in batches, for a queue where a batch costs about what
 * one does (decision 27). On the router's thread: each acceptance is stored {@link #GRACE} after it came, with every
 * other one whose grace is over by then, in one {@link TaskQueue#startAll}. A task whose result arrives within its
 * grace is never started: its completion takes it from claimed to completed (decision 34),
 * one statement and one wait of the router's thread fewer for every quick tool. Results are stored meanwhile on
 * another thread ({@link ResultBatcher}), which is why a batch of starts and one of results lock their rows in one
 * order. (Moving starts to a thread of their own was tried and withdrawn: decision 24.)
 */
final class StartBatcher {
    private static final System.Logger LOG = System.getLogger(StartBatcher.class.getName());
    private static final int MAX_BATCH = 256;
    /**
     * How long an acceptance waits for its result before it is stored: longer than a quick tool's run and its result's
     * way back on a busy machine, too short for anyone to see. A brain that dies meanwhile leaves the task claimed
     * rather than running; its worker's result is stored all the same when it reconnects, and only a worker lost as
     * well makes its attempt go uncounted.
     */
    static final Duration GRACE = Duration.ofMillis(20);

    private final TaskQueue queue;
    private final Duration lease;
    private final BiFunction<Runnable, Duration, Future<?>> scheduler;
    /** Acceptances waiting, oldest first, each with the time (System.nanoTime) it is stored at the latest. */
    private final Map<String, Waiting> pending = new LinkedHashMap<>();
    private boolean flushScheduled;

    private record Waiting(Inflight flight, long due) {
    }

    /**
     * @param scheduler runs work on the router's thread after a delay
     */
    StartBatcher(TaskQueue queue, Duration lease, BiFunction<Runnable, Duration, Future<?>> scheduler) {
        this.queue = queue;
        this.lease = lease;
        this.scheduler = scheduler;
    }

    /** A worker accepted the task: it is started {@link #GRACE} later, unless its result comes first. */
    void add(Inflight f) {
        pending.put(f.task.id(), new Waiting(f, System.nanoTime() + GRACE.toNanos()));
        if (!flushScheduled) {
            flushScheduled = true;
            scheduler.apply(this::flushDue, GRACE);
        }
    }

    /**
     * The task's result arrived: its start, if still waiting, is not stored (the completion or failure of a claimed
     * task needs none). Whether it was waiting.
     */
    boolean drop(String taskId) {
        return pending.remove(taskId) != null;
    }

    /** Whether {@code taskId}'s start is waiting. */
    boolean pending(String taskId) {
        return pending.containsKey(taskId);
    }

    /** Stores every acceptance waiting, due or not (progress that needs the start, the router's close). */
    void flush() {
        flushUntil(Long.MAX_VALUE);
    }

    /**
     * Stores the acceptances whose grace is over (to the timer's millisecond), each waiting its own: one batch's
     * flush is not the next's. Then waits for the oldest left.
     */
    private void flushDue() {
        flushScheduled = false;
        long now = System.nanoTime();
        flushUntil(now + 1_000_000);
        if (!pending.isEmpty()) {
            long left = pending.values().iterator().next().due() - now;
            flushScheduled = true;
            scheduler.apply(this::flushDue, Duration.ofMillis(Math.max(1, (left + 999_999) / 1_000_000)));
        }
    }

    /** Stores the acceptances due by {@code until}, oldest first; one statement per {@value #MAX_BATCH}. */
    private void flushUntil(long until) {
        while (!pending.isEmpty()) {
            Map<String, String> batch = new LinkedHashMap<>();
            List<Inflight> flights = new ArrayList<>();
            for (var it = pending.values().iterator(); it.hasNext() && batch.size() < MAX_BATCH; ) {
                Waiting w = it.next();
                if (w.due() - until > 0) {
                    break;
                }
                it.remove();
                batch.put(w.flight().task.id(), w.flight().session.id);
                flights.add(w.flight());
            }
            if (batch.isEmpty()) {
                return;
            }
            store(batch, flights);
        }
    }

    private void store(Map<String, String> batch, List<Inflight> flights) {
        Set<String> started;
        try {
            started = queue.startAll(batch, lease).stream().map(Task::id).collect(Collectors.toSet());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not start a batch of " + batch.size() + " accepted tasks; starting each alone",
                    e);
            startEach(flights);
            return;
        }
        for (Inflight f : flights) {
            if (!started.contains(f.task.id())) {
                LOG.log(Level.DEBUG, "Task {0} accepted by {1} but not started: it ended or was given back meanwhile",
                        f.task.id(), f.session.name);
            }
        }
    }

    private void startEach(List<Inflight> flights) {
        for (Inflight f : flights) {
            try {
                queue.start(f.task.id(), f.session.id, lease);
            } catch (QueueException e) {
                LOG.log(RouterState.level(e), "Task {0} accepted by {1} but not started: {2}", f.task.id(),
                        f.session.name, e.getMessage());
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "Task " + f.task.id() + " accepted by " + f.session.name + " but not started", e);
            }
        }
    }
}
