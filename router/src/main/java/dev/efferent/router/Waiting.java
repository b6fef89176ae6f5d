package dev.efferent.router;

import java.time.Instant;

/** Why a queued task is not running yet: facts, which the conversations module puts into words. */
public sealed interface Waiting {
    /** The task waits for a person's yes. */
    record ForApproval() implements Waiting {
    }

    /** A failed attempt is tried again at {@code at}. */
    record Retry(Instant at, String lastError) implements Waiting {
    }

    /** The task is for {@code worker}, which is offline. */
    record WorkerOffline(String worker) implements Waiting {
    }

    /** The task is for {@code worker}, which is busy. */
    record WorkerBusy(String worker) implements Waiting {
    }

    /** The task is for {@code worker}, which does not offer {@code tool} (any more). */
    record WorkerLacksTool(String worker, String tool) implements Waiting {
    }

    /** Every online worker that has {@code tool} is busy. */
    record AllBusy(String tool) implements Waiting {
    }

    /** No online worker has {@code tool}. */
    record NoWorkerOnline(String tool) implements Waiting {
    }
}
