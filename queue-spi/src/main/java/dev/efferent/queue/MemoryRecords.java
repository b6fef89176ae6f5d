package dev.efferent.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** {@link Records#inMemory()}: the logs of the 10,000 most recently written, and every value. */
final class MemoryRecords implements Records {
    private static final int MAX_LOGS = 10_000;

    private final LinkedHashMap<String, ArrayDeque<String>> logs = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<String>> eldest) {
            return size() > MAX_LOGS;
        }
    };
    private final TreeMap<String, String> values = new TreeMap<>();

    @Override
    public synchronized void append(String log, String data, int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("a record log keeps at least 1 entry, got " + keep);
        }
        // Re-inserted, so the map's order is the order of the last write, and the least recently written goes first.
        ArrayDeque<String> entries = logs.remove(log);
        if (entries == null) {
            entries = new ArrayDeque<>();
        }
        logs.put(log, entries);
        entries.addLast(data);
        while (entries.size() > keep) {
            entries.removeFirst();
        }
    }

    @Override
    public synchronized List<String> tail(String log, int limit) {
        ArrayDeque<String> entries = logs.get(log);
        if (entries == null || limit <= 0) {
            return List.of();
        }
        List<String> all = new ArrayList<>(entries);
        return List.copyOf(all.subList(Math.max(0, all.size() - limit), all.size()));
    }

    @Override
    public synchronized List<String> logs(String prefix, int limit) {
        List<String> names = new ArrayList<>(logs.keySet());
        // Insertion order puts the most recently written last.
        java.util.Collections.reverse(names);
        return names.stream().filter(n -> n.startsWith(prefix)).limit(Math.max(0, limit)).toList();
    }

    @Override
    public synchronized void put(String key, String data) {
        values.put(key, data);
    }

    @Override
    public synchronized boolean replace(String key, String expected, String data) {
        return values.replace(key, expected, data);
    }

    @Override
    public synchronized Optional<String> get(String key) {
        return Optional.ofNullable(values.get(key));
    }

    @Override
    public synchronized boolean remove(String key) {
        return values.remove(key) != null;
    }

    @Override
    public synchronized Map<String, String> values(String prefix) {
        return java.util.Collections.unmodifiableMap(new TreeMap<>(values.subMap(prefix, true,
                prefix + Character.MAX_VALUE, true)));
    }
}
