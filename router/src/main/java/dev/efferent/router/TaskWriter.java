package dev.efferent.router;

import dev.efferent.queue.QueueException;
import dev.efferent.queue.TaskQueue;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * How the router writes what workers report to the queue: each report at once ({@link Inline}), or many in one
 * statement for a queue where a batch costs about what one write does ({@link Batched}: a database, decisions 27 and
 * 34). Chosen once, from {@link TaskQueue#batchesWrites()}; the rest of the router does not know which it has. Used
 * on the router's thread only.
 */
sealed interface TaskWriter permits TaskWriter.Inline, TaskWriter.Batched {
    /**
     * The writer for {@code queue}.
     *
     * @param post      runs work on the router's thread, after what is already waiting there
     * @param scheduler runs work on the router's thread after a delay
     * @param stored    what to do with a batch of results once stored, on the router's thread
     */
    static TaskWriter of(TaskQueue queue, Duration lease, Consumer<Runnable> post,
                         BiFunction<Runnable, Duration, Future<?>> scheduler, Consumer<ResultBatcher.Stored> stored) {
        return queue.batchesWrites()
                ? new Batched(new StartBatcher(queue, lease, post, scheduler), new ResultBatcher(queue, post, stored))
                : new Inline(queue, lease);
    }

    /** Writes that {@code f}'s worker accepted it; whether it counts as accepted (started, or on its way). */
    boolean start(Inflight f);

    /** {@code taskId} reported progress, which is kept for a running task only: its start, if waiting, goes now. */
    void startNow(String taskId);

    /** The result of {@code f} came while its start waited: the start is left out (decision 34); whether it was. */
    boolean leaveOutStart(Inflight f);

    /** The flight of {@code taskId} ended otherwise (rejected, lost): its start, if waiting, is not written. */
    void dropStart(String taskId);

    /** Takes a completed result to store with others, answered through {@code stored}; false: store it now. */
    boolean completeLater(ResultBatcher.Pending result);

    /** Writes every start still waiting; for the router's close, once its thread has stopped. */
    void flushStarts();

    /** Stops storing results; those not stored yet are not acknowledged, and their workers offer them again. */
    void close();

    /** Each report written as it comes. */
    record Inline(TaskQueue queue, Duration lease) implements TaskWriter {
        private static final System.Logger LOG = System.getLogger(TaskWriter.class.getName());

        @Override
        public boolean start(Inflight f) {
            try {
                queue.start(f.task.id(), f.session.id, lease);
                return true;
            } catch (QueueException e) {
                LOG.log(RouterState.level(e), "Task {0} accepted by {1} but not started: {2}", f.task.id(),
                        f.session.name, e.getMessage());
                return false;
            }
        }

        @Override
        public void startNow(String taskId) {
        }

        @Override
        public boolean leaveOutStart(Inflight f) {
            return false;
        }

        @Override
        public void dropStart(String taskId) {
        }

        @Override
        public boolean completeLater(ResultBatcher.Pending result) {
            return false;
        }

        @Override
        public void flushStarts() {
        }

        @Override
        public void close() {
        }
    }

    /** Starts gathered on the router's thread, results stored off it: many in one statement each. */
    record Batched(StartBatcher starts, ResultBatcher results) implements TaskWriter {
        @Override
        public boolean start(Inflight f) {
            starts.add(f);
            return true;
        }

        @Override
        public void startNow(String taskId) {
            starts.startNow(taskId);
        }

        @Override
        public boolean leaveOutStart(Inflight f) {
            // Only the start of a task that may run again waits for its result (StartBatcher.GRACE).
            return f.retryable && starts.drop(f.task.id());
        }

        @Override
        public void dropStart(String taskId) {
            starts.drop(taskId);
        }

        @Override
        public boolean completeLater(ResultBatcher.Pending result) {
            results.add(result);
            return true;
        }

        @Override
        public void flushStarts() {
            starts.flush();
        }

        @Override
        public void close() {
            results.close();
        }
    }
}
