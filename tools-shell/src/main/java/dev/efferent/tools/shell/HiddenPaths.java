package dev.efferent.tools.shell;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Files and directories a sandboxed command must not read ({@code tools.shell.hide}): bubblewrap mounts an empty
 * {@code tmpfs} on each directory and {@code /dev/null} on each file, so inside the sandbox they look empty. The
 * read-only view of the system would otherwise show the command everything the worker's user can read.
 *
 * <p>The default hides files whose only purpose is to hold credentials, nothing a build or a test needs:
 * Efferent's own {@code ~/.efferent} (the brain's API token, the worker's state and journal, the chat history),
 * SSH and GnuPG keys, the cloud and cluster logins of AWS, Azure, Google Cloud, Kubernetes and Docker, the GitHub
 * CLI's token, and the password files of curl/git ({@code ~/.netrc}, {@code ~/.git-credentials}), PyPI uploads
 * and Cargo publishing. Files that mix credentials with build configuration ({@code ~/.npmrc},
 * {@code ~/.m2/settings.xml}, {@code ~/.gradle/gradle.properties}) are left visible, as hiding them would break
 * builds; add them when that matters more. A cost of the default: {@code git} over SSH and commit signing do
 * not work in the sandbox.
 *
 * @param entries the paths as configured, for the tool's description
 * @param paths   the same, {@code ~} expanded, absolute and normalised
 */
record HiddenPaths(List<String> entries, List<Path> paths) {
    static final String KEY = "tools.shell.hide";
    /** The same list the file tools are kept out of (see {@link dev.efferent.tools.spi.AllowedRoots}). */
    static final List<String> DEFAULT = AllowedRoots.DEFAULT_HIDDEN;
    static final HiddenPaths NONE = new HiddenPaths(List.of(), List.of());

    HiddenPaths {
        entries = List.copyOf(entries);
        paths = List.copyOf(paths);
    }

    /** The paths of {@code tools.shell.hide} in {@code settings} (the toolkit's), {@code ~} being {@code home}. */
    static HiddenPaths from(Settings settings, Path home) {
        // Set, even to an empty list, replaces the default: get() tells "hide: []" from unset, list() cannot.
        return of(settings.get("hide").isPresent() ? settings.list("hide") : DEFAULT, home);
    }

    /**
     * The paths of {@code tools.shell.hide}.
     *
     * @param entries the list as set ({@link #DEFAULT} when unset); an empty list hides nothing
     * @param home    the user's home, which a leading {@code ~} stands for
     * @throws ToolException naming the entry if it is neither absolute nor starts with {@code ~/}, or is {@code /}
     */
    static HiddenPaths of(List<String> entries, Path home) {
        List<Path> paths = new ArrayList<>();
        for (String entry : entries) {
            // Like core's HomePath, which this module cannot reach: it depends on the tool SPI only.
            String expanded = entry.equals("~") || entry.startsWith("~/") ? home + entry.substring(1) : entry;
            Path path;
            try {
                path = Path.of(expanded).normalize();
            } catch (InvalidPathException e) {
                throw new ToolException("setting '" + KEY + "' has the entry '" + entry + "', which is not a valid "
                        + "path: " + e.getReason());
            }
            if (!path.isAbsolute()) {
                throw new ToolException("setting '" + KEY + "' has the entry '" + entry + "': a path to hide must be "
                        + "absolute or start with ~/");
            }
            if (path.getNameCount() == 0) {
                throw new ToolException("setting '" + KEY + "' has the entry '" + entry + "', which would hide the "
                        + "whole file system; list the directories that hold secrets instead");
            }
            paths.add(path);
        }
        return new HiddenPaths(entries, paths);
    }

    /**
     * bubblewrap's arguments for each path that exists now, by the path it covers: {@code --tmpfs} for a directory,
     * {@code /dev/null} bound over anything else. Symbolic links are followed, so the place they lead to is hidden.
     */
    List<BwrapSandbox.Mount> mounts() {
        List<BwrapSandbox.Mount> mounts = new ArrayList<>();
        for (Path path : paths) {
            if (!Files.exists(path)) {
                continue;
            }
            Path real;
            try {
                real = path.toRealPath();
            } catch (IOException e) {
                // Gone or unreadable since exists(): bubblewrap resolves the path itself, and fails the command if
                // it cannot mount there, rather than run it with the path visible.
                real = path;
            }
            mounts.add(new BwrapSandbox.Mount(real, BwrapSandbox.Layer.HIDDEN, Files.isDirectory(real)
                    ? List.of("--tmpfs", real.toString()) : List.of("--ro-bind", "/dev/null", real.toString())));
        }
        return mounts;
    }

    /** For the tool's description, e.g. "~/.ssh, ~/.aws". */
    String shown() {
        return String.join(", ", entries);
    }
}
