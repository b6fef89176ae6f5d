package dev.efferent.store.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a provider implements: text by namespace name, key and log name. {@link TypedStore} turns it into a
 * {@link dev.efferent.store.Store}: claims, codecs and argument checks are done there, once, for every provider.
 * The methods mean what {@link dev.efferent.store.Space}'s of the same name mean; arguments arrive checked.
 */
public interface TextStore extends AutoCloseable {
    Optional<String> get(String namespace, String key);

    void put(String namespace, String key, String data);

    boolean putIfAbsent(String namespace, String key, String data);

    boolean compareAndSet(String namespace, String key, String expected, String data);

    boolean remove(String namespace, String key);

    /** Values whose keys sort after {@code after}, by key, at most {@code limit}; in key order. */
    Map<String, String> entries(String namespace, String after, int limit);

    void append(String namespace, String log, String data, int keep);

    List<String> tail(String namespace, String log, int limit);

    List<String> logs(String namespace, String start, int limit);

    /** Whether what is kept outlives this process. */
    boolean durable();

    @Override
    void close();
}
