package dev.efferent.router;

import dev.efferent.queue.Task;

import java.util.Objects;
import java.util.Optional;

/**
 * What became of a submitted request: facts, which the conversations module puts into words.
 *
 * @param task    the task as it was right after routing (queued, claimed or already running)
 * @param outcome where it went
 * @param worker  the name of the worker running it, for {@link Outcome#RUNNING}
 */
public record Submission(Task task, Outcome outcome, Optional<String> worker) {
    public Submission {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(worker, "worker");
    }

    /** Where a submitted task went. */
    public enum Outcome {
        /** Dispatched at once to {@link #worker()}. */
        RUNNING,
        /** Queued: no worker that has the tool is online. */
        QUEUED_OFFLINE,
        /** Queued: every worker that has the tool is busy. */
        QUEUED_BUSY,
        /** Not added: its idempotency key was used before, by {@link #task()}. */
        DUPLICATE,
        /** Held until a person allows it ({@link Router#approve}). */
        HELD
    }

    /** No worker that has the tool is online: the task waits in the queue. */
    public boolean offline() {
        return outcome == Outcome.QUEUED_OFFLINE;
    }
}
