package dev.efferent.tools.spi;

import java.time.Duration;
import java.time.Instant;

/**
 * What a running tool is given by its host: the task, the roots it may touch, a way to report progress,
 * cancellation and the deadline. Implemented by the host; thread-safe.
 */
public interface ToolContext {

    /** The id of the task this call runs for. */
    String taskId();

    /**
     * Who the task runs for: a conversation key such as {@code telegram:42}, or empty when unknown. Stateful
     * tools keep one session per value (the browser keeps one set of cookies per conversation).
     */
    default String session() {
        return "";
    }

    /** The directories the tool may read and write under. */
    AllowedRoots roots();

    /**
     * Reports progress to whoever started the task. Cheap; the host rate-limits what it forwards.
     *
     * @param percent 0 to 100; values outside are clamped
     * @param message what the tool is doing now, may be empty
     */
    void progress(int percent, String message);

    /** Whether the task was cancelled or ran past its deadline. Long loops should poll it. */
    boolean isCancelled();

    /**
     * Runs {@code hook} once when the task is cancelled or times out (at once if it already was), e.g. to kill
     * a process. Hooks run on the host's thread and must not block.
     */
    void onCancel(Runnable hook);

    /** When the task must be finished; the host cancels it then. */
    Instant deadline();

    /** Time left until the deadline, never negative. */
    default Duration remaining() {
        Duration left = Duration.between(Instant.now(), deadline());
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** Throws if the task was cancelled, so a tool can stop between steps. */
    default void checkCancelled() {
        if (isCancelled()) {
            throw new ToolException("task " + taskId() + " was cancelled");
        }
    }
}
