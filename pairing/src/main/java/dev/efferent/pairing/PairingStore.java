package dev.efferent.pairing;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import dev.efferent.store.StoreException;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Where codes and tokens are kept, each by its hash: the store when it is durable (they live as long as the tasks,
 * and every brain over the same database sees them), else a file in the brain's state directory, readable only by
 * its user: a machine paired to a brain whose tasks are in memory must still get in after that brain restarts.
 */
sealed interface PairingStore {
    /** What is kept: a namespace of the store each, and a key prefix each in the file (its format since 0.1). */
    enum Kind {
        CODE("pairing.codes", "pairing-code:"),
        TOKEN("pairing.tokens", "worker-token:"),
        /** When a token was last used, kept apart so that noting it never writes the token's own record back. */
        SEEN("pairing.seen", "worker-seen:");

        final String namespace;
        final String filePrefix;

        Kind(String namespace, String filePrefix) {
            this.namespace = namespace;
            this.filePrefix = filePrefix;
        }
    }

    Optional<String> get(Kind kind, String hash);

    void put(Kind kind, String hash, String value);

    /** Forgets {@code hash}; whether it was there (of two callers, one only gets true). */
    boolean remove(Kind kind, String hash);

    /** Every value of {@code kind}, by hash. */
    Map<String, String> values(Kind kind);

    /** The store's namespaces {@code pairing.codes}, {@code pairing.tokens} and {@code pairing.seen}. */
    final class InStore implements PairingStore {
        /** More than anyone pairs; a list past it is cut rather than read without end. */
        private static final int MAX = 10_000;
        private final Map<Kind, Space<String>> spaces = new EnumMap<>(Kind.class);

        InStore(Store store) {
            for (Kind kind : Kind.values()) {
                spaces.put(kind, store.claim(new Namespace<>(kind.namespace, Codec.text()), "efferent.pairing"));
            }
        }

        @Override
        public Optional<String> get(Kind kind, String hash) {
            return spaces.get(kind).get(hash);
        }

        @Override
        public void put(Kind kind, String hash, String value) {
            spaces.get(kind).put(hash, value);
        }

        @Override
        public boolean remove(Kind kind, String hash) {
            return spaces.get(kind).remove(hash);
        }

        @Override
        public Map<String, String> values(Kind kind) {
            return spaces.get(kind).entries(MAX);
        }
    }

    /** A JSON file, mode 600, rewritten whole on each change (a handful of entries). */
    final class InFile implements PairingStore {
        private static final ObjectMapper JSON = new ObjectMapper();
        private final Path file;
        private final TreeMap<String, String> entries;

        InFile(Path file) {
            this.file = file;
            try {
                entries = Files.exists(file)
                        ? JSON.readValue(file.toFile(), new TypeReference<TreeMap<String, String>>() { })
                        : new TreeMap<>();
            } catch (IOException e) {
                throw new StoreException("cannot read the paired workers in " + file + " (" + e.getMessage()
                        + "): fix or delete the file (deleting it unpairs every machine)", e);
            }
        }

        @Override
        public synchronized Optional<String> get(Kind kind, String hash) {
            return Optional.ofNullable(entries.get(kind.filePrefix + hash));
        }

        @Override
        public synchronized void put(Kind kind, String hash, String value) {
            entries.put(kind.filePrefix + hash, value);
            write();
        }

        @Override
        public synchronized boolean remove(Kind kind, String hash) {
            boolean was = entries.remove(kind.filePrefix + hash) != null;
            if (was) {
                write();
            }
            return was;
        }

        @Override
        public synchronized Map<String, String> values(Kind kind) {
            Map<String, String> found = new TreeMap<>();
            entries.forEach((k, v) -> {
                if (k.startsWith(kind.filePrefix)) {
                    found.put(k.substring(kind.filePrefix.length()), v);
                }
            });
            return found;
        }

        private void write() {
            try {
                Files.createDirectories(file.toAbsolutePath().getParent());
                Path temp = file.resolveSibling(file.getFileName() + ".tmp");
                Files.deleteIfExists(temp);
                try {
                    Files.createFile(temp, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")));
                } catch (UnsupportedOperationException e) {
                    // Not a POSIX file system (Windows): the directory's own protection applies.
                    Files.createFile(temp);
                } catch (FileAlreadyExistsException e) {
                    throw new IOException("another process writes " + temp, e);
                }
                JSON.writeValue(temp.toFile(), entries);
                try {
                    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } catch (IOException e) {
                throw new StoreException("cannot keep the paired workers in " + file + " (" + e.getMessage()
                        + "): set brain.state-dir to a directory this user may write", e);
            }
        }
    }
}
