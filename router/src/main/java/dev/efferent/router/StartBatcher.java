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
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * Stores workers' acceptances ({@code CLAIMED → RUNNING}) in batches, for a queue where a batch costs about what
 * one does (decision 27). On the router's thread: an acceptance is stored with every other one due, in one
 * {@link TaskQueue#startAll}, by a flush posted behind the events already waiting; under load that is one commit for
 * many tasks, at low load the flush runs at once. The acceptance of a task that may run again (a read-only or
 * idempotent tool) waits {@link #GRACE} first, and a result that comes within it takes it out: the completion takes
 * the task from claimed to its end, one statement and one wait of the router's thread fewer for every quick call
 * (decision 34). Results are stored meanwhile on another thread ({@link ResultBatcher}), which is why a batch of starts
 * and one of results lock their rows in one order. (Moving starts to a thread of their own was tried and withdrawn:
 * decision 24.)
 */
final class StartBatcher {
    private static final System.Logger LOG = System.getLogger(StartBatcher.class.getName());
    private static final int MAX_BATCH = 256;
    /**
     * How long the acceptance of a task that may run again waits for its result: longer than a quick tool's run and
     * its result's way back on a busy machine, too short for anyone to see. Only such tasks wait: a brain that dies
     * meanwhile leaves the task claimed, not running, and a claimed task's lease is renewed by no heartbeat, so a task
     * that outlives it runs again elsewhere.
     */
    static final Duration GRACE = Duration.ofMillis(20);

    private final TaskQueue queue;
    private final Duration lease;
    private final Consumer<Runnable> post;
    private final BiFunction<Runnable, Duration, Future<?>> scheduler;
    /** Acceptances waiting, each with the time (System.nanoTime) from which it is stored. */
    private final Map<String, Due> pending = new LinkedHashMap<>();
    private boolean flushPosted;
    private boolean timerSet;

    private record Due(Inflight flight, long at) {
    }

    /**
     * @param post      runs work on the router's thread, after what is already waiting there
     * @param scheduler runs work on the router's thread after a delay
     */
    StartBatcher(TaskQueue queue, Duration lease, Consumer<Runnable> post,
                 BiFunction<Runnable, Duration, Future<?>> scheduler) {
        this.queue = queue;
        this.lease = lease;
        this.post = post;
        this.scheduler = scheduler;
    }

    /** A worker accepted the task: it is started with the next flush, or after {@link #GRACE} if it may run again. */
    void add(Inflight f) {
        long now = System.nanoTime();
        if (!f.retryable) {
            pending.put(f.task.id(), new Due(f, now));
            if (!flushPosted) {
                flushPosted = true;
                post.accept(this::flushDue);
            }
            return;
        }
        pending.put(f.task.id(), new Due(f, now + GRACE.toNanos()));
        if (!timerSet) {
            // Every grace is the same: a timer already set fires before this one's ends.
            schedule(GRACE);
        }
    }

    /**
     * The task's result arrived while its start waited for it, or its flight ended: its start, if still waiting, is
     * not stored (a claimed task is completed, failed or given back as a running one is). Whether it was waiting.
     */
    boolean drop(String taskId) {
        return pending.remove(taskId) != null;
    }

    /** Stores {@code taskId}'s start now if it is waiting (progress is kept for running tasks only), with those due. */
    void startNow(String taskId) {
        Due due = pending.get(taskId);
        if (due != null) {
            long now = System.nanoTime();
            pending.put(taskId, new Due(due.flight(), now));
            store(now, false);
        }
    }

    /** Stores every acceptance waiting, due or not: for the router's close. */
    void flush() {
        store(0, true);
    }

    private void flushDue() {
        flushPosted = false;
        store(System.nanoTime(), false);
    }

    private void timer() {
        timerSet = false;
        // To the timer's millisecond: what is due within it is stored now rather than a timer later.
        store(System.nanoTime() + 1_000_000, false);
        long now = System.nanoTime();
        pending.values().stream().mapToLong(d -> d.at() - now).min().ifPresent(left ->
                schedule(Duration.ofMillis(Math.max(1, (left + 999_999) / 1_000_000))));
    }

    private void schedule(Duration delay) {
        try {
            scheduler.apply(this::timer, delay);
            timerSet = true;
        } catch (RejectedExecutionException e) {
            // The router is closing: its close stores what is waiting (flush).
            LOG.log(Level.DEBUG, "Router is closing; {0} acceptances left for its close to store", pending.size());
        }
    }

    /** Stores the acceptances due by {@code until} (all, with {@code all}); one statement per {@value #MAX_BATCH}. */
    private void store(long until, boolean all) {
        while (true) {
            Map<String, String> batch = new LinkedHashMap<>();
            List<Inflight> flights = new ArrayList<>();
            for (var it = pending.values().iterator(); it.hasNext() && batch.size() < MAX_BATCH; ) {
                Due d = it.next();
                if (!all && d.at() - until > 0) {
                    continue;
                }
                it.remove();
                batch.put(d.flight().task.id(), d.flight().session.id);
                flights.add(d.flight());
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
