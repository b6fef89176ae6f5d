package dev.efferent.worker;

import dev.efferent.core.config.ConfigException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/** The worker's persistent id, kept in {@code <state-dir>/worker-id} so the brain knows it across restarts. */
final class WorkerIdentity {
    private WorkerIdentity() {
    }

    static String load(Path stateDir) {
        Path file = stateDir.resolve("worker-id");
        try {
            Files.createDirectories(stateDir);
            if (Files.exists(file)) {
                String id = Files.readString(file).strip();
                if (!id.isEmpty()) {
                    return id;
                }
            }
            String id = UUID.randomUUID().toString();
            Files.writeString(file, id + "\n");
            return id;
        } catch (IOException e) {
            throw new ConfigException("cannot keep the worker id in " + file + ": " + e.getMessage()
                    + "; set worker.state-dir (--state-dir) to a writable directory", e);
        }
    }
}
