package dev.efferent.router;

import dev.efferent.queue.Task;

/** What a wait for a task came to ({@link Router#finishedOrOffline}): it finished, or it waits for a machine. */
public sealed interface Awaited {
    /** The task finished: completed, failed or cancelled. */
    record Finished(Task task) implements Awaited {
    }

    /** The task is queued for a machine that is offline, or for a tool no online machine has: it may wait long. */
    record Offline(Waiting why) implements Awaited {
    }
}
