package dev.efferent.tools.spi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The directories a tool may touch, less the hidden paths inside them (credentials: {@code ~/.ssh} and the like).
 * {@link #resolve} turns a user's path into a real path inside one of them, refusing {@code ..} escapes, absolute
 * paths elsewhere, symbolic links that lead outside, and hidden paths; tools that walk a tree skip what
 * {@link #isHidden} says.
 */
public final class AllowedRoots {
    /**
     * What is hidden unless configured otherwise ({@code tools.shell.hide}): files whose only purpose is to hold
     * credentials, and Efferent's own state.
     */
    public static final List<String> DEFAULT_HIDDEN = List.of("~/.efferent", "~/.ssh", "~/.gnupg", "~/.aws",
            "~/.azure", "~/.config/gcloud", "~/.kube", "~/.docker", "~/.config/gh", "~/.netrc", "~/.git-credentials",
            "~/.pypirc", "~/.cargo/credentials.toml");

    private final List<Path> roots;
    private final List<Path> hidden;

    private AllowedRoots(List<Path> roots, List<Path> hidden) {
        this.roots = roots;
        this.hidden = hidden;
    }

    /**
     * Roots from existing directories; each is resolved to its real path.
     *
     * @throws ToolException if the list is empty or a root is not an existing directory
     */
    public static AllowedRoots of(List<Path> directories) {
        return of(directories, List.of());
    }

    /**
     * Roots from existing directories, with paths inside them that tools may not reach (absolute; their real paths
     * are hidden too, where they exist).
     *
     * @throws ToolException if the list is empty or a root is not an existing directory
     */
    public static AllowedRoots of(List<Path> directories, List<Path> hiddenPaths) {
        if (directories.isEmpty()) {
            throw new ToolException("no allowed roots configured: set tools.roots to at least one directory");
        }
        List<Path> real = new ArrayList<>();
        for (Path dir : directories) {
            try {
                Path r = dir.toRealPath();
                if (!Files.isDirectory(r)) {
                    throw new ToolException("allowed root '" + dir + "' is not a directory");
                }
                real.add(r);
            } catch (IOException e) {
                throw new ToolException("allowed root '" + dir + "' does not exist or cannot be read: " + e.getMessage());
            }
        }
        List<Path> hide = new ArrayList<>();
        for (Path h : hiddenPaths) {
            Path normal = h.toAbsolutePath().normalize();
            hide.add(normal);
            try {
                // Where it is a link (a dotfiles repository), what it leads to is hidden as well.
                Path target = normal.toRealPath();
                if (!target.equals(normal)) {
                    hide.add(target);
                }
            } catch (IOException e) {
                // It does not exist (yet): the path itself is hidden, should it appear.
            }
        }
        return new AllowedRoots(List.copyOf(real), List.copyOf(hide));
    }

    /** The hidden paths, absolute and normalised. */
    public List<Path> hidden() {
        return hidden;
    }

    /** Whether {@code absolute} (normalised) is a hidden path or inside one. */
    public boolean isHidden(Path absolute) {
        return hiddenNow().stream().anyMatch(absolute::startsWith);
    }

    /**
     * The hidden paths with where each leads now: one created after the start (an {@code aws configure}), or under a
     * home or a {@code ~/.config} that is a link, is found by its real path too. Worked out again at most once a
     * second: listings and searches ask for every entry.
     */
    private List<Path> hiddenNow() {
        long now = System.nanoTime();
        Resolved r = resolved;
        if (r == null || now - r.at() > 1_000_000_000L) {
            List<Path> all = new ArrayList<>(hidden);
            for (Path h : hidden) {
                Path real;
                try {
                    real = leadsTo(h);
                } catch (IOException e) {
                    // A link to nowhere, or unreadable: the path as configured stays hidden, which is all there is.
                    real = h;
                }
                if (!all.contains(real)) {
                    all.add(real);
                }
            }
            r = new Resolved(now, List.copyOf(all));
            resolved = r;
        }
        return r.paths();
    }

    private record Resolved(long at, List<Path> paths) {
    }

    private volatile Resolved resolved;

    /**
     * Where {@code path} leads: its nearest existing ancestor resolved (following links), with the rest appended;
     * the path itself when no ancestor exists.
     */
    private static Path leadsTo(Path path) throws IOException {
        Path existing = path;
        Path rest = path.getFileSystem().getPath("");
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            rest = existing.getFileName().resolve(rest);
            existing = existing.getParent();
        }
        return existing == null ? path : existing.toRealPath().resolve(rest).normalize();
    }

    /** The roots, as real absolute paths; relative paths resolve against the first. */
    public List<Path> paths() {
        return roots;
    }

    /** The first root, where relative paths start. */
    public Path home() {
        return roots.getFirst();
    }

    /**
     * Resolves {@code path} (relative to the first root, or absolute) to a real path inside a root. The path
     * need not exist: its nearest existing ancestor is resolved, so a file can be created.
     *
     * @throws ToolException naming the path and the allowed roots if it lies, or leads through a link, outside
     */
    public Path resolve(String path) {
        Objects.requireNonNull(path, "path");
        Path requested;
        try {
            requested = home().resolve(path.isEmpty() ? "." : path).normalize();
        } catch (InvalidPathException e) {
            throw new ToolException("path '" + path + "' is not a valid path: " + e.getReason());
        }
        if (!isInside(requested)) {
            throw outside(path, requested);
        }
        Path real = realPath(path, requested);
        if (!isInside(real)) {
            throw new ToolException("path '" + path + "' leads through a symbolic link to '" + real
                    + "', which is outside the allowed roots " + roots);
        }
        if (isHidden(requested) || isHidden(real)) {
            throw new ToolException("path '" + path + "' is hidden from tools: it holds credentials or Efferent's own "
                    + "state (tools.shell.hide lists what is hidden; set it to change that)");
        }
        return real;
    }

    /** Whether {@code absolute} (already normalised) lies inside a root. */
    public boolean isInside(Path absolute) {
        return roots.stream().anyMatch(absolute::startsWith);
    }

    /** The path relative to the root that holds it, for messages and listings. */
    public String display(Path real) {
        for (Path root : roots) {
            if (real.startsWith(root)) {
                String rel = root.relativize(real).toString();
                return rel.isEmpty() ? "." : rel;
            }
        }
        return real.toString();
    }

    private Path realPath(String original, Path requested) {
        try {
            return leadsTo(requested);
        } catch (NoSuchFileException e) {
            throw new ToolException("path '" + original + "' is a symbolic link whose target does not exist");
        } catch (IOException e) {
            throw new ToolException("path '" + original + "' cannot be resolved: " + e.getMessage());
        }
    }

    private ToolException outside(String original, Path requested) {
        return new ToolException("path '" + original + "' (" + requested + ") is outside the allowed roots " + roots);
    }

    @Override
    public String toString() {
        return roots.toString();
    }
}
