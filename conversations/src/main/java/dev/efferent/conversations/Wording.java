package dev.efferent.conversations;

import dev.efferent.router.Submission;
import dev.efferent.router.Waiting;

/** The router's facts put into words for a person: what became of a request, why a task waits. */
public final class Wording {
    private Wording() {
    }

    /** E.g. "Your machine is offline. I've queued this task (k3x9m2qa7bfd)." */
    public static String of(Submission s) {
        String id = s.task().id();
        return switch (s.outcome()) {
            case RUNNING -> "Running " + s.task().tool() + " on " + s.worker().orElse("a worker") + " (" + id + ").";
            case QUEUED_OFFLINE -> "Your machine is offline. I've queued this task (" + id + ").";
            case QUEUED_BUSY -> "Every worker that has " + s.task().tool() + " is busy. I've queued this task ("
                    + id + ").";
            case DUPLICATE -> "This request was already submitted as task " + id + ".";
            case HELD -> "This needs your approval first (task " + id + ").";
        };
    }

    /** E.g. "waiting for worker laptop to come online". */
    public static String of(Waiting w) {
        return switch (w) {
            case Waiting.ForApproval a -> "waiting for your approval";
            case Waiting.Retry r -> "tried again at " + r.at() + " after: " + r.lastError();
            case Waiting.WorkerOffline o -> "waiting for worker " + o.worker() + " to come online";
            case Waiting.WorkerBusy b -> "worker " + b.worker() + " is busy";
            case Waiting.WorkerLacksTool l -> "worker " + l.worker() + " does not offer " + l.tool()
                    + " (any more); cancel the task or start a worker that has it";
            case Waiting.AllBusy a -> "every worker that has " + a.tool() + " is busy";
            case Waiting.NoWorkerOnline n -> "waiting for a worker that has " + n.tool() + " to come online";
        };
    }
}
