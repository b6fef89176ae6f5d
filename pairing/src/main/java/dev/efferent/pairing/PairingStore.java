package dev.efferent.pairing;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Records;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Where codes and tokens are kept: the queue's records when it has them (they live as long as the tasks, and every
 * brain over the same database sees them), else a file in the brain's state directory, readable only by its user:
 * a machine paired to a brain whose tasks are in memory must still get in after that brain restarts.
 */
sealed interface PairingStore {
    Optional<String> get(String key);

    void put(String key, String value);

    /** Forgets {@code key}; whether it was there (of two callers, one only gets true). */
    boolean remove(String key);

    Map<String, String> values(String prefix);

    /** The queue's records. */
    record InRecords(Records records) implements PairingStore {
        @Override
        public Optional<String> get(String key) {
            return records.get(key);
        }

        @Override
        public void put(String key, String value) {
            records.put(key, value);
        }

        @Override
        public boolean remove(String key) {
            return records.remove(key);
        }

        @Override
        public Map<String, String> values(String prefix) {
            return records.values(prefix);
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
                throw new QueueException("cannot read the paired workers in " + file + " (" + e.getMessage()
                        + "): fix or delete the file (deleting it unpairs every machine)", e);
            }
        }

        @Override
        public synchronized Optional<String> get(String key) {
            return Optional.ofNullable(entries.get(key));
        }

        @Override
        public synchronized void put(String key, String value) {
            entries.put(key, value);
            write();
        }

        @Override
        public synchronized boolean remove(String key) {
            boolean was = entries.remove(key) != null;
            if (was) {
                write();
            }
            return was;
        }

        @Override
        public synchronized Map<String, String> values(String prefix) {
            Map<String, String> found = new TreeMap<>();
            entries.forEach((k, v) -> {
                if (k.startsWith(prefix)) {
                    found.put(k, v);
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
                throw new QueueException("cannot keep the paired workers in " + file + " (" + e.getMessage()
                        + "): set brain.state-dir to a directory this user may write", e);
            }
        }
    }
}
