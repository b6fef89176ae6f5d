package dev.efferent.queue;

import java.util.List;

/**
 * Small records the brain keeps beside its tasks, in the same store, so that they survive a restart wherever the
 * tasks do: what each conversation said, for one. Offered by {@link TaskQueue#records()} of a durable queue.
 * Every method is thread-safe and throws {@link QueueException} when the store cannot be reached.
 */
public interface Records {
    /**
     * Appends {@code data} to the log named {@code log}, keeping only its last {@code keep} entries.
     *
     * @param log  the log's name, e.g. a conversation's key
     * @param data what to keep, e.g. JSON text
     * @param keep how many of the log's newest entries to keep, at least 1
     */
    void append(String log, String data, int keep);

    /** The last {@code limit} entries of {@code log}, oldest first; empty for a log never written. */
    List<String> tail(String log, int limit);
}
