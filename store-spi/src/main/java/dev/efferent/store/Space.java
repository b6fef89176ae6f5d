package dev.efferent.store;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One claimed namespace: values by key, and logs by name that keep only their newest entries. A value and a log of
 * the same name are apart. Keys and log names are non-empty text of at most 500 characters.
 *
 * @param <T> the type of the namespace's values and log entries
 */
public interface Space<T> {
    /** The namespace this space holds. */
    Namespace<T> namespace();

    /** What is kept under {@code key}, if anything. */
    Optional<T> get(String key);

    /** Keeps {@code value} under {@code key}, replacing what was there. */
    void put(String key, T value);

    /** Keeps {@code value} under {@code key} only if nothing is kept there; whether it did (of two callers, one does). */
    boolean putIfAbsent(String key, T value);

    /**
     * Replaces what is kept under {@code key} with {@code value} only if it is still {@code expected} (compared as
     * encoded text); whether it did. Of several processes that read the same value and replace it, one wins: how
     * brains over one database share a piece of work (a schedule's next fire) without doing it twice.
     */
    boolean compareAndSet(String key, T expected, T value);

    /** Forgets {@code key}; whether it was there (of two callers, one only gets true). */
    boolean remove(String key);

    /** At most {@code limit} values whose keys sort after {@code after} ({@code ""} from the start), by key. */
    Map<String, T> entries(String after, int limit);

    /** At most {@code limit} values, by key, from the first. */
    default Map<String, T> entries(int limit) {
        return entries("", limit);
    }

    /**
     * Appends {@code entry} to the log named {@code log}, keeping only its last {@code keep} entries.
     *
     * @param keep how many of the log's newest entries to keep, at least 1
     */
    void append(String log, T entry, int keep);

    /** The last {@code limit} entries of {@code log}, oldest first; empty for a log never written. */
    List<T> tail(String log, int limit);

    /** The names of the logs that start with {@code start}, most recently written first, at most {@code limit}. */
    List<String> logs(String start, int limit);
}
