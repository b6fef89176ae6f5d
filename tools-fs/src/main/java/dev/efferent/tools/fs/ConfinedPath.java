package dev.efferent.tools.fs;

import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolException;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * A user's path inside an allowed root, reached one name at a time from the root's directory handle without
 * following symbolic links. Every file tool opens files and directories through this class.
 *
 * <p>Why: {@link AllowedRoots#resolve} checks a path, but a check followed by an open by path can be raced (a
 * directory swapped for a link in between sends the open outside the root). So the real path that resolve returns
 * is walked from the root with {@link SecureDirectoryStream} (openat with O_NOFOLLOW); a link met on the way can
 * only have appeared since the check, and fails the call. Links inside the roots still work: resolve has already
 * replaced them by their real targets, which is what gets walked. Where the platform has no SecureDirectoryStream
 * (Windows), each name is checked by path and the last one opened with NOFOLLOW_LINKS: that narrows the race but
 * cannot close it. The limits left are listed in {@code package-info}.
 *
 * <p>An instance is a directory handle plus a name in it ({@code "."} for the directory itself). It closes the
 * handle only if it opened it; {@link #child} borrows its parent's.
 */
final class ConfinedPath implements Closeable {
    private static final Set<PosixFilePermission> NEW_FILE = PosixFilePermissions.fromString("rw-r--r--");
    private static final FileAttribute<Set<PosixFilePermission>> PRIVATE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final SecureDirectoryStream<Path> dir; // null where the platform has none
    private final boolean ownsDir;
    private final Path dirPath;
    private final String name;
    private final Path path;
    private final String shown;
    private final HardLinks hardLinks;

    private ConfinedPath(SecureDirectoryStream<Path> dir, boolean ownsDir, Path dirPath, String name, String shown,
                         HardLinks hardLinks) {
        this.dir = dir;
        this.ownsDir = ownsDir;
        this.dirPath = dirPath;
        this.name = name;
        this.path = dirPath.resolve(name).normalize();
        this.shown = shown;
        this.hardLinks = hardLinks;
    }

    /** Opens the directory that holds {@code shown}; the path itself need not exist. */
    static ConfinedPath open(AllowedRoots roots, String shown, FsLimits limits) throws IOException {
        return walk(roots, shown, limits, false);
    }

    /** Like {@link #open}, creating missing parent directories on the way. */
    static ConfinedPath openCreatingParents(AllowedRoots roots, String shown, FsLimits limits) throws IOException {
        return walk(roots, shown, limits, true);
    }

    private static ConfinedPath walk(AllowedRoots roots, String shown, FsLimits limits, boolean create)
            throws IOException {
        Path real = roots.resolve(shown);
        Path root = roots.paths().stream().filter(real::startsWith).findFirst()
                .orElseThrow(() -> new IllegalStateException("resolve gave '" + real + "', outside " + roots));
        List<String> names = new ArrayList<>();
        root.relativize(real).forEach(n -> names.add(n.toString()));
        names.removeIf(String::isEmpty);
        String last = names.isEmpty() ? "." : names.removeLast();
        DirectoryStream<Path> stream = Files.newDirectoryStream(root);
        SecureDirectoryStream<Path> dir = stream instanceof SecureDirectoryStream<Path> secure ? secure : null;
        if (dir == null) {
            stream.close();
        }
        Path dirPath = root;
        try {
            for (String name : names) {
                SecureDirectoryStream<Path> parent = dir;
                dir = descend(dir, dirPath, name, shown, create);
                dirPath = dirPath.resolve(name);
                close(parent);
            }
        } catch (IOException | RuntimeException e) {
            closeAfter(e, dir);
            throw e;
        }
        return new ConfinedPath(dir, true, dirPath, last, shown, new HardLinks(limits.allowHardLinks()));
    }

    private static SecureDirectoryStream<Path> descend(SecureDirectoryStream<Path> dir, Path dirPath, String name,
                                                       String shown, boolean create) throws IOException {
        Optional<BasicFileAttributes> attrs = attributes(dir, dirPath, name);
        if (attrs.isEmpty() && create) {
            // SecureDirectoryStream cannot create a directory (there is no mkdirat), so this one is made by path.
            // If a directory above was swapped for a link since the walk opened it, it may land outside the root;
            // the handle walk below then finds no such name here and fails. So at worst an empty directory
            // appears outside a root, never file content.
            try {
                Files.createDirectory(dirPath.resolve(name));
            } catch (FileAlreadyExistsException e) {
                // Made meanwhile by another call; the checks below decide whether it may be entered.
            }
            attrs = attributes(dir, dirPath, name);
        }
        BasicFileAttributes found = attrs.orElseThrow(() -> new NoSuchFileException(dirPath.resolve(name).toString()));
        requireDirectory(found, dirPath.resolve(name), shown);
        return dir == null ? null : dir.newDirectoryStream(Path.of(name), NOFOLLOW_LINKS);
    }

    /** The real absolute path this names, for display; never open it by this path. */
    Path path() {
        return path;
    }

    /** Its attributes, not following a link; empty if it does not exist. */
    Optional<BasicFileAttributes> attributes() throws IOException {
        return attributes(dir, dirPath, name);
    }

    /** Its POSIX attributes, not following a link; empty if it does not exist or the platform has none. */
    Optional<PosixFileAttributes> posixAttributes() throws IOException {
        PosixFileAttributeView view = posixView(name);
        try {
            return view == null ? Optional.empty() : Optional.of(view.readAttributes());
        } catch (NoSuchFileException e) {
            return Optional.empty(); // absence is an answer here, not a failure
        }
    }

    /** Opens the regular file for reading, refusing links, swaps under the open and (by default) hard links. */
    SeekableByteChannel openForReading() throws IOException {
        BasicFileAttributes before = attributes().orElseThrow(() -> new NoSuchFileException(path.toString()));
        if (before.isSymbolicLink()) {
            throw swapped(path);
        }
        // Before the open, from the handle: opening a FIFO blocks in native code until a writer comes, out of reach
        // of interrupts and cancellation, and a device may do anything. Java has no O_NONBLOCK open, so a name
        // swapped for a FIFO after this check can still block this one call (see package-info).
        requireRegularFile(before);
        SeekableByteChannel channel = dir != null ? dir.newByteChannel(Path.of(name), Set.of(READ, NOFOLLOW_LINKS))
                : Files.newByteChannel(path, READ, NOFOLLOW_LINKS);
        try {
            // No public fstat on a channel: the name is checked again after the open to be the same file.
            BasicFileAttributes after = attributes().orElseThrow(() -> new NoSuchFileException(path.toString()));
            if (!Objects.equals(before.fileKey(), after.fileKey())) {
                throw changed(path);
            }
            hardLinks.check(path, after, shown);
            return channel;
        } catch (IOException | RuntimeException e) {
            closeAfter(e, channel);
            throw e;
        }
    }

    /** Refuses anything but a regular file, naming its kind (see {@link FileKind}). */
    private void requireRegularFile(BasicFileAttributes attrs) {
        if (!attrs.isRegularFile()) {
            throw FileKind.of(path, attrs).notRegular(shown);
        }
    }

    /** Whether the file would be refused for its hard links (see {@link HardLinks}). */
    boolean refusesHardLink(BasicFileAttributes attrs) throws IOException {
        return hardLinks.refuses(path, attrs);
    }

    /**
     * Replaces the file with {@code bytes} atomically: a new file beside it, renamed over it inside the same
     * directory handle, so a reader sees the old file or the new one. An existing file keeps its permissions.
     */
    void replace(byte[] bytes) throws IOException {
        Optional<BasicFileAttributes> existing = attributes();
        if (existing.isPresent()) {
            // The rename below never opens the old name, but replacing a pipe, socket or device someone made there
            // with a file would be a surprise; refused like every open. Directories are the callers' to refuse.
            if (existing.get().isOther()) {
                requireRegularFile(existing.get());
            }
            hardLinks.check(path, existing.get(), shown);
        }
        Set<PosixFilePermission> permissions = posixAttributes().map(PosixFileAttributes::permissions)
                .map(Set::copyOf).orElse(NEW_FILE);
        // At most 32 code points of the name (128 bytes of UTF-8), so the temporary name stays under NAME_MAX.
        String stem = name.codePoints().limit(32)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        String temp = "." + stem + "." + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".tmp";
        boolean moved = false;
        try {
            // CREATE_NEW is O_CREAT|O_EXCL: whatever already has the temporary name (a FIFO planted there included)
            // fails the open with "already exists" instead of being opened.
            try (SeekableByteChannel out = dir != null
                    ? dir.newByteChannel(Path.of(temp), Set.of(WRITE, CREATE_NEW, NOFOLLOW_LINKS), PRIVATE)
                    : Files.newByteChannel(dirPath.resolve(temp), WRITE, CREATE_NEW, NOFOLLOW_LINKS)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
            }
            PosixFileAttributeView view = posixView(temp);
            if (view != null) {
                view.setPermissions(permissions);
            }
            if (dir != null) {
                dir.move(Path.of(temp), dir, Path.of(name)); // renameat: atomic, replaces, never follows
            } else {
                Files.move(dirPath.resolve(temp), path, StandardCopyOption.ATOMIC_MOVE);
            }
            moved = true;
        } finally {
            if (!moved) {
                deleteTemp(temp);
            }
        }
    }

    private PosixFileAttributeView posixView(String entry) {
        return dir != null ? dir.getFileAttributeView(Path.of(entry), PosixFileAttributeView.class, NOFOLLOW_LINKS)
                : Files.getFileAttributeView(dirPath.resolve(entry), PosixFileAttributeView.class, NOFOLLOW_LINKS);
    }

    private void deleteTemp(String temp) throws IOException {
        try {
            if (dir != null) {
                dir.deleteFile(Path.of(temp));
            } else {
                Files.delete(dirPath.resolve(temp));
            }
        } catch (NoSuchFileException e) {
            // Never created: the failure that brought us here is the one to report.
        }
    }

    /** Opens this directory for listing, not following a link. The caller closes it. */
    ConfinedPath openDirectory() throws IOException {
        requireDirectory(attributes().orElseThrow(() -> new NoSuchFileException(path.toString())), path, shown);
        SecureDirectoryStream<Path> opened = dir == null ? null : dir.newDirectoryStream(Path.of(name), NOFOLLOW_LINKS);
        return new ConfinedPath(opened, true, path, ".", shown, hardLinks);
    }

    /** The names in a directory from {@link #openDirectory}; call once. */
    List<String> names() throws IOException {
        List<String> names = new ArrayList<>();
        if (dir != null) {
            dir.forEach(entry -> names.add(entry.getFileName().toString())); // the handle stays open for child()
            return names;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(path)) {
            entries.forEach(entry -> names.add(entry.getFileName().toString()));
        }
        return names;
    }

    /** An entry of a directory from {@link #openDirectory}, sharing its handle. */
    ConfinedPath child(String childName) {
        String childShown = ".".equals(shown) ? childName : shown + "/" + childName;
        return new ConfinedPath(dir, false, path, childName, childShown, hardLinks);
    }

    /** The target of a symbolic link, for display only (read by path: no readlinkat in Java). */
    Path readSymbolicLink() throws IOException {
        return Files.readSymbolicLink(path);
    }

    @Override
    public void close() throws IOException {
        if (ownsDir) {
            close(dir);
        }
    }

    private static Optional<BasicFileAttributes> attributes(SecureDirectoryStream<Path> dir, Path dirPath, String name)
            throws IOException {
        try {
            return Optional.of(dir != null
                    ? dir.getFileAttributeView(Path.of(name), BasicFileAttributeView.class, NOFOLLOW_LINKS)
                            .readAttributes()
                    : Files.readAttributes(dirPath.resolve(name), BasicFileAttributes.class, NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty(); // absence is an answer here, not a failure
        }
    }

    private static void requireDirectory(BasicFileAttributes attrs, Path at, String shown) {
        if (attrs.isSymbolicLink()) {
            throw swapped(at);
        }
        if (!attrs.isDirectory()) {
            throw new ToolException("path '" + shown + "' cannot be opened: '" + at + "' is not a directory");
        }
    }

    private static ToolException swapped(Path at) {
        return new ToolException("'" + at + "' became a symbolic link after the path was checked; the file tools "
                + "do not follow links that change under them. Try again once the path stays put");
    }

    static ToolException changed(Path file) {
        return new ToolException("'" + file + "' was replaced while it was being opened; try again once it stays put");
    }

    private static void close(Closeable resource) throws IOException {
        if (resource != null) {
            resource.close();
        }
    }

    private static void closeAfter(Exception failure, Closeable resource) {
        try {
            close(resource);
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }
}
