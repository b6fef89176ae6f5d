package dev.efferent.queue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Small records the brain keeps beside its tasks, in the same store, so that they survive a restart wherever the
 * tasks do: what each conversation said, the state of a parked agent turn. Offered by {@link TaskQueue#records()}
 * of a durable queue; {@link #inMemory()} for a process that keeps them itself. Every method is thread-safe and
 * throws {@link QueueException} when the store cannot be reached.
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

    /** The names of the logs that start with {@code prefix}, most recently written first, at most {@code limit}. */
    List<String> logs(String prefix, int limit);

    /** Keeps {@code data} under {@code key}, replacing what was there. */
    void put(String key, String data);

    /**
     * Replaces what is kept under {@code key} with {@code data} only if it is exactly {@code expected}; whether it
     * did. Of several processes that read the same value and replace it, one wins: how brains over one database
     * share a piece of work (a schedule's next fire) without doing it twice.
     */
    boolean replace(String key, String expected, String data);

    /** What is kept under {@code key}, if anything. */
    Optional<String> get(String key);

    /** Forgets {@code key}; returns whether it was there. */
    boolean remove(String key);

    /** Everything kept under a key that starts with {@code prefix}, by key. */
    Map<String, String> values(String prefix);

    /** Records kept in this process's memory, gone when it ends. */
    static Records inMemory() {
        return new MemoryRecords();
    }
}
