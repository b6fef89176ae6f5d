package dev.efferent.core.config;

import io.helidon.config.Config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Secrets (the API token, the worker secret) come from the environment, the configuration file, or a file of
 * their own named by {@code <key>-file}; never from the command line, where {@code ps} shows them to every user.
 */
public final class Secrets {
    private Secrets() {
    }

    /**
     * The secret at {@code key} under {@code config}, or read from the file {@code <key>-file} names (trimmed).
     *
     * @throws ConfigException when both are set, or the file is unreadable or empty
     */
    public static Optional<String> read(Config config, String key) {
        Optional<String> value = config.get(key).asString().asOptional().filter(v -> !v.isBlank());
        Optional<String> file = config.get(key + "-file").asString().asOptional().filter(v -> !v.isBlank());
        if (value.isPresent() && file.isPresent()) {
            throw new ConfigException(config.get(key).key() + " and " + config.get(key + "-file").key()
                    + " are both set: keep one");
        }
        if (file.isEmpty()) {
            return value;
        }
        Path path = HomePath.of(file.get());
        String name = config.get(key + "-file").key().toString();
        try {
            String text = Files.readString(path).strip();
            if (text.isEmpty()) {
                throw new ConfigException(name + " " + path + " is empty: write the secret into it");
            }
            return Optional.of(text);
        } catch (IOException e) {
            throw new ConfigException(name + " " + path + " cannot be read (" + e + "): check the path and that "
                    + "this user may read it");
        }
    }
}
