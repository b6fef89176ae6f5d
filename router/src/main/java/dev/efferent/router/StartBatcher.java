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
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Stores workers' acceptances ({@code CLAIMED → RUNNING}) in batches, for a queue where a batch costs about what
 * one does (decision 27). On the router's thread: the first acceptance posts a flush behind the events already
 * waiting, and every acceptance that arrives before it runs is stored with it, in one {@link TaskQueue#startAll}.
 * Under load that is one commit for many tasks; at low load the flush runs at once. Results are stored meanwhile on
 * another thread ({@link ResultBatcher}), which is why a batch of starts and one of results lock their rows in one
 * order. (Moving starts to a thread of their own was tried and withdrawn: decision 24.)
 */
final class StartBatcher {
    private static final System.Logger LOG = System.getLogger(StartBatcher.class.getName());
    private static final int MAX_BATCH = 256;

    private final TaskQueue queue;
    private final Duration lease;
    private final Consumer<Runnable> post;
    private final Map<String, Inflight> pending = new LinkedHashMap<>();
    private boolean flushPosted;

    /**
     * @param post runs work on the router's thread, after what is already waiting there
     */
    StartBatcher(TaskQueue queue, Duration lease, Consumer<Runnable> post) {
        this.queue = queue;
        this.lease = lease;
        this.post = post;
    }

    /** A worker accepted the task: it is started with the next flush. */
    void add(Inflight f) {
        pending.put(f.task.id(), f);
        if (!flushPosted) {
            flushPosted = true;
            post.accept(this::flush);
        }
    }

    /** Whether {@code taskId}'s start is waiting for the next flush. */
    boolean pending(String taskId) {
        return pending.containsKey(taskId);
    }

    /** Stores every acceptance waiting; one statement per {@value #MAX_BATCH}. */
    void flush() {
        flushPosted = false;
        while (!pending.isEmpty()) {
            Map<String, String> batch = new LinkedHashMap<>();
            List<Inflight> flights = new ArrayList<>();
            for (var it = pending.values().iterator(); it.hasNext() && batch.size() < MAX_BATCH; ) {
                Inflight f = it.next();
                it.remove();
                batch.put(f.task.id(), f.session.id);
                flights.add(f);
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
