package dev.efferent.router;

import dev.efferent.protocol.TaskResult;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Stores workers' results off the router's thread, many in one {@link TaskQueue#completeAll}, for a queue where a
 * batch costs about what one result does (a database: one statement, one commit). A batch is whatever arrived
 * while the previous one was being stored, so a result at low load is stored at once and under load the batches
 * grow by themselves; the router's thread meanwhile goes on dispatching. Each stored batch is handed back to the
 * router's thread, which acknowledges the results to their workers then. A batch the queue refused is tried once more
 * a second later; a result still not stored is not acknowledged, and its worker offers it again.
 */
final class ResultBatcher implements AutoCloseable {
    /** A result waiting to be stored, with the connection and the dispatch it answers. */
    record Pending(WorkerSession session, TaskResult result, Inflight inflight) {
    }

    /** A batch as stored: the tasks completed by id, or why none could be. */
    record Stored(List<Pending> batch, Map<String, Task> completed, Optional<QueueException> failure) {
    }

    private static final int MAX_BATCH = 256;
    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final TaskQueue queue;
    private final Consumer<Runnable> post;
    private final Consumer<Stored> done;
    private final List<Pending> pending = new ArrayList<>();
    private final Thread thread;
    private boolean closed;

    /**
     * @param queue the queue results are stored in
     * @param post  runs work on the router's thread
     * @param done  what to do with a stored batch, on the router's thread
     */
    ResultBatcher(TaskQueue queue, Consumer<Runnable> post, Consumer<Stored> done) {
        this.queue = queue;
        this.post = post;
        this.done = done;
        this.thread = Thread.ofPlatform().daemon().name("efferent-router-results").start(this::run);
    }

    synchronized void add(Pending p) {
        pending.add(p);
        notifyAll();
    }

    private void run() {
        while (true) {
            List<Pending> batch;
            synchronized (this) {
                while (pending.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    // Not acknowledged: the workers offer them again to the next brain.
                    return;
                }
                int n = Math.min(MAX_BATCH, pending.size());
                batch = new ArrayList<>(pending.subList(0, n));
                pending.subList(0, n).clear();
            }
            Stored stored = store(batch);
            if (stored.failure().isPresent() && pauseBeforeRetry()) {
                // Once more after a moment (a connection lost and replaced, a failover): a result not stored is
                // offered again by its worker only after several heartbeat intervals.
                stored = store(batch);
            }
            Stored result = stored;
            post.accept(() -> done.accept(result));
        }
    }

    private Stored store(List<Pending> batch) {
        try {
            Map<String, String> results = new LinkedHashMap<>();
            batch.forEach(p -> results.put(p.result().taskId(), p.result().result().orElseThrow().toString()));
            Map<String, Task> completed = queue.completeAll(results).stream()
                    .collect(Collectors.toMap(Task::id, t -> t, (a, b) -> a));
            return new Stored(batch, completed, Optional.empty());
        } catch (QueueException e) {
            return new Stored(batch, Map.of(), Optional.of(e));
        }
    }

    /** Waits {@link #RETRY_AFTER}; false if the batcher closed meanwhile. */
    private synchronized boolean pauseBeforeRetry() {
        long until = System.nanoTime() + RETRY_AFTER.toNanos();
        long left;
        while (!closed && (left = until - System.nanoTime()) > 0) {
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                return false;
            }
        }
        return !closed;
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        thread.interrupt();
    }
}
