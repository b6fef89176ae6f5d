package dev.efferent.tools.fs;

import dev.efferent.tools.spi.ToolException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

/**
 * What kind of file a name holds, for messages and for stat and list_dir. The file tools read and write regular
 * files only: opening a FIFO blocks until a writer comes (in native code, where no interrupt or cancellation
 * reaches), and reading a device or socket may never end. So every open is preceded by a check of the attributes
 * read through the directory handle, and a refusal names the kind.
 */
enum FileKind {
    REGULAR("file", "a regular file"),
    DIRECTORY("directory", "a directory"),
    SYMLINK("symlink", "a symbolic link"),
    FIFO("fifo", "a named pipe (FIFO)"),
    SOCKET("socket", "a socket"),
    CHARACTER_DEVICE("character device", "a character device"),
    BLOCK_DEVICE("block device", "a block device"),
    OTHER("other", "a special file (a device, pipe or socket)");

    /** The file-type bits of {@code st_mode} and the values stat(2) gives them. */
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFSOCK = 0140000;

    private final String label;
    private final String description;

    FileKind(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /**
     * The kind of {@code path}, whose attributes {@code attrs} were read through a directory handle (links not
     * followed). Java's handle attributes only say "other" for pipes, sockets and devices; which of them is read
     * by path, for the name only, and trusted only if the device and inode are still those of {@code attrs}.
     */
    static FileKind of(Path path, BasicFileAttributes attrs) {
        if (attrs.isRegularFile()) {
            return REGULAR;
        }
        if (attrs.isDirectory()) {
            return DIRECTORY;
        }
        if (attrs.isSymbolicLink()) {
            return SYMLINK;
        }
        if (!path.getFileSystem().supportedFileAttributeViews().contains("unix")) {
            return OTHER;
        }
        try {
            Map<String, Object> unix = Files.readAttributes(path, "unix:mode,fileKey", NOFOLLOW_LINKS);
            if (!Objects.equals(unix.get("fileKey"), attrs.fileKey())) {
                return OTHER; // replaced meanwhile; the handle's answer, "other", is all that is known
            }
            return switch ((Integer) unix.get("mode") & S_IFMT) {
                case S_IFIFO -> FIFO;
                case S_IFSOCK -> SOCKET;
                case S_IFCHR -> CHARACTER_DEVICE;
                case S_IFBLK -> BLOCK_DEVICE;
                default -> OTHER;
            };
        } catch (IOException e) {
            return OTHER; // gone or unreadable meanwhile; the name is a courtesy, the refusal stands
        }
    }

    /** The word stat and list_dir show as the type, e.g. {@code fifo}. */
    String label() {
        return label;
    }

    /** The refusal of opening {@code shown}, which is of this kind. */
    ToolException notRegular(String shown) {
        return new ToolException("'" + shown + "' is " + description + ", not a regular file; "
                + "the file tools read and write regular files only");
    }
}
