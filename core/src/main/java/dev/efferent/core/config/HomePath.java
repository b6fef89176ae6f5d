package dev.efferent.core.config;

import java.nio.file.Path;

/** Paths in configuration may start with {@code ~}, the user's home, as in a shell. */
public final class HomePath {
    private HomePath() {
    }

    /** {@code path} with a leading {@code ~} or {@code ~/} replaced by the user's home directory. */
    public static String expand(String path) {
        if (path.equals("~") || path.startsWith("~/")) {
            return System.getProperty("user.home") + path.substring(1);
        }
        return path;
    }

    /** {@link #expand(String)} as an absolute, normalised path. */
    public static Path of(String path) {
        return Path.of(expand(path)).toAbsolutePath().normalize();
    }
}
