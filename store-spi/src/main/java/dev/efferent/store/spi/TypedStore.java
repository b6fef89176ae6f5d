package dev.efferent.store.spi;

import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import dev.efferent.store.StoreException;

import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link Store} over a provider's {@link TextStore}: it records who claimed each namespace, checks keys and
 * limits, and encodes and decodes with each namespace's codec, the same way for every provider.
 */
public final class TypedStore implements Store {
    /** The longest key or log name: long enough for a hash or a conversation's key, short enough for an index. */
    public static final int MAX_KEY = 500;
    private static final System.Logger LOG = System.getLogger(TypedStore.class.getName());

    private final TextStore text;
    private final Map<String, String> owners = new LinkedHashMap<>();

    private TypedStore(TextStore text) {
        this.text = text;
    }

    /** The store a provider opens over {@code text}. */
    public static Store over(TextStore text) {
        return new TypedStore(Objects.requireNonNull(text, "text"));
    }

    @Override
    public <T> Space<T> claim(Namespace<T> namespace, String owner) {
        Objects.requireNonNull(namespace, "namespace");
        if (owner == null || owner.isBlank()) {
            throw new StoreException("namespace '" + namespace.name() + "' must be claimed by a named owner, such as "
                    + "its module's name");
        }
        synchronized (owners) {
            String first = owners.putIfAbsent(namespace.name(), owner);
            if (first != null && !first.equals(owner)) {
                throw new StoreException("namespace '" + namespace.name() + "' is claimed by " + first
                        + " and again by " + owner + ": a namespace has one owner; rename one of them (or leave one module off the "
                        + "module path)");
            }
        }
        return new TypedSpace<>(namespace);
    }

    @Override
    public boolean durable() {
        return text.durable();
    }

    @Override
    public void close() {
        text.close();
    }

    private static String key(String what, String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY) {
            throw new StoreException("a " + what + " is 1 to " + MAX_KEY + " characters, got "
                    + (key == null ? "none"
                    : key.length() + ": '" + key.substring(0, Math.min(key.length(), 40)) + "'"));
        }
        return key;
    }

    private final class TypedSpace<T> implements Space<T> {
        private final Namespace<T> namespace;
        private final String name;

        TypedSpace(Namespace<T> namespace) {
            this.namespace = namespace;
            this.name = namespace.name();
        }

        @Override
        public Namespace<T> namespace() {
            return namespace;
        }

        @Override
        public Optional<T> get(String key) {
            return text.get(name, key("key", key)).map(data -> decode(key, data));
        }

        @Override
        public void put(String key, T value) {
            text.put(name, key("key", key), encode(value));
        }

        @Override
        public boolean putIfAbsent(String key, T value) {
            return text.putIfAbsent(name, key("key", key), encode(value));
        }

        @Override
        public boolean compareAndSet(String key, T expected, T value) {
            return text.compareAndSet(name, key("key", key), encode(expected), encode(value));
        }

        @Override
        public boolean remove(String key) {
            return text.remove(name, key("key", key));
        }

        @Override
        public Map<String, T> entries(String after, int limit) {
            Objects.requireNonNull(after, "after");
            Map<String, T> found = new LinkedHashMap<>();
            // An entry that cannot be read is left out (and logged), not the whole page with it.
            text.entries(name, after, Math.max(0, limit)).forEach((k, data) -> readable(k, data)
                    .ifPresent(v -> found.put(k, v)));
            return Collections.unmodifiableMap(found);
        }

        @Override
        public void append(String log, T entry, int keep) {
            if (keep < 1) {
                throw new StoreException("a log keeps at least 1 entry, got " + keep + " for log '" + log + "' of "
                        + name);
            }
            text.append(name, key("log name", log), encode(entry), keep);
        }

        @Override
        public List<T> tail(String log, int limit) {
            return text.tail(name, key("log name", log), Math.max(0, limit)).stream()
                    .flatMap(data -> readable(log, data).stream()).toList();
        }

        @Override
        public List<String> logs(String start, int limit) {
            return text.logs(name, Objects.requireNonNull(start, "start"), Math.max(0, limit));
        }

        private String encode(T value) {
            return namespace.codec().encode(Objects.requireNonNull(value, "value"));
        }

        /** {@code data} decoded; empty, with a warning, when it cannot be (one bad entry of a list). */
        private Optional<T> readable(String key, String data) {
            try {
                return Optional.of(decode(key, data));
            } catch (StoreException e) {
                LOG.log(Level.WARNING, "{0}; left out of the list", e.getMessage());
                return Optional.empty();
            }
        }

        private T decode(String key, String data) {
            try {
                return namespace.codec().decode(data);
            } catch (RuntimeException e) {
                throw new StoreException("cannot read '" + key + "' of namespace " + name + " (" + e.getMessage()
                        + "): it was written by another version of its owner, or changed by hand; remove it", e);
            }
        }
    }
}
