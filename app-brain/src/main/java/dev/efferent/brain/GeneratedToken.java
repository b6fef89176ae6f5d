package dev.efferent.brain;

import dev.efferent.core.config.ConfigException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The API token of a brain that was given none: made once, kept in a file only its user can read, and reused on
 * every start, so other users of the machine (and web pages) cannot use a brain that listens on loopback. The
 * terminal chat and local scripts read the same file.
 */
final class GeneratedToken {
    private GeneratedToken() {
    }

    /** The token in {@code file}, made (32 random bytes, mode 600) if the file does not exist yet. */
    static String loadOrCreate(Path file) {
        try {
            if (Files.exists(file)) {
                String token = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (token.isEmpty()) {
                    throw new ConfigException("the API token file " + file + " is empty: delete it and the brain "
                            + "makes a new token, or set api.token");
                }
                return token;
            }
            Files.createDirectories(file.getParent());
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            create(file, token);
            return token;
        } catch (FileAlreadyExistsException e) {
            // Another brain made it between our look and our write: use theirs.
            return loadOrCreate(file);
        } catch (IOException e) {
            throw new ConfigException("cannot keep the brain's API token in " + file + " (" + e + "): set "
                    + "brain.state-dir to a directory this user may write, or set api.token");
        }
    }

    private static void create(Path file, String token) throws IOException {
        // Written whole to a private temporary file, then moved into place: no other reader ever sees an empty
        // or half-written token, and the file is never readable by others, even for a moment.
        Path temp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        Files.deleteIfExists(temp); // left by a crashed process that had our pid
        try {
            Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            // Not a POSIX file system (Windows): the file inherits the user profile's permissions.
            Files.createFile(temp);
        }
        try {
            Files.writeString(temp, token + "\n", StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
            // A hard link never replaces: a token another brain made meanwhile wins (FileAlreadyExistsException).
            Files.createLink(file, temp);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
