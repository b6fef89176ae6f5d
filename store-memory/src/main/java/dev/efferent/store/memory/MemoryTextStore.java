package dev.efferent.store.memory;

import dev.efferent.store.spi.TextStore;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Text in this process's memory: every value, and the logs of the {@value #MAX_LOGS} most recently written of each
 * namespace (a log per conversation would otherwise grow without end in a long-lived process).
 */
final class MemoryTextStore implements TextStore {
    static final int MAX_LOGS = 10_000;

    private final Map<String, TreeMap<String, String>> values = new HashMap<>();
    private final Map<String, LinkedHashMap<String, ArrayDeque<String>>> logs = new HashMap<>();

    private TreeMap<String, String> values(String namespace) {
        return values.computeIfAbsent(namespace, n -> new TreeMap<>());
    }

    private LinkedHashMap<String, ArrayDeque<String>> logs(String namespace) {
        return logs.computeIfAbsent(namespace, n -> new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<String>> eldest) {
                return size() > MAX_LOGS;
            }
        });
    }

    @Override
    public synchronized Optional<String> get(String namespace, String key) {
        return Optional.ofNullable(values(namespace).get(key));
    }

    @Override
    public synchronized void put(String namespace, String key, String data) {
        values(namespace).put(key, data);
    }

    @Override
    public synchronized boolean putIfAbsent(String namespace, String key, String data) {
        return values(namespace).putIfAbsent(key, data) == null;
    }

    @Override
    public synchronized boolean compareAndSet(String namespace, String key, String expected, String data) {
        return values(namespace).replace(key, expected, data);
    }

    @Override
    public synchronized boolean remove(String namespace, String key) {
        return values(namespace).remove(key) != null;
    }

    @Override
    public synchronized Map<String, String> entries(String namespace, String after, int limit) {
        Map<String, String> found = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : values(namespace).tailMap(after, false).entrySet()) {
            if (found.size() >= limit) {
                break;
            }
            found.put(e.getKey(), e.getValue());
        }
        return found;
    }

    @Override
    public synchronized void append(String namespace, String log, String data, int keep) {
        LinkedHashMap<String, ArrayDeque<String>> all = logs(namespace);
        // Re-inserted, so the map's order is the order of the last write, and the least recently written goes first.
        ArrayDeque<String> entries = all.remove(log);
        if (entries == null) {
            entries = new ArrayDeque<>();
        }
        all.put(log, entries);
        entries.addLast(data);
        while (entries.size() > keep) {
            entries.removeFirst();
        }
    }

    @Override
    public synchronized List<String> tail(String namespace, String log, int limit) {
        ArrayDeque<String> entries = logs(namespace).get(log);
        if (entries == null || limit == 0) {
            return List.of();
        }
        List<String> all = new ArrayList<>(entries);
        return List.copyOf(all.subList(Math.max(0, all.size() - limit), all.size()));
    }

    @Override
    public synchronized List<String> logs(String namespace, String start, int limit) {
        List<String> names = new ArrayList<>(logs(namespace).keySet());
        // Insertion order puts the most recently written last.
        Collections.reverse(names);
        return names.stream().filter(n -> n.startsWith(start)).limit(limit).toList();
    }

    @Override
    public boolean durable() {
        return false;
    }

    @Override
    public void close() {
        // Nothing to release: the maps go with the store.
    }
}
