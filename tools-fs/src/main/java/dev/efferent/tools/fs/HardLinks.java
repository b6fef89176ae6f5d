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
 * The hard-link policy ({@code tools.fs.allow-hardlinks}, off by default): a regular file with more than one hard
 * link may share its content with a name outside the roots, which no path check can see, so it is refused.
 *
 * @param allowed whether hard-linked files may be used anyway
 */
record HardLinks(boolean allowed) {

    /** Whether {@code file}, whose handle-read attributes are {@code attrs}, is refused for its hard links. */
    boolean refuses(Path file, BasicFileAttributes attrs) throws IOException {
        return !allowed && attrs.isRegularFile() && count(file, attrs) > 1;
    }

    /** Refuses {@code file} if it has more than one hard link and they are not allowed. */
    void check(Path file, BasicFileAttributes attrs, String shown) throws IOException {
        if (refuses(file, attrs)) {
            throw new ToolException("file '" + shown + "' has " + count(file, attrs) + " hard links, so its content "
                    + "may be shared with a file outside the allowed roots; the file tools refuse hard-linked files. "
                    + "If this file is meant to be used, set tools.fs.allow-hardlinks: true");
        }
    }

    private static int count(Path file, BasicFileAttributes attrs) throws IOException {
        if (!file.getFileSystem().supportedFileAttributeViews().contains("unix")) {
            return 1; // Windows shows Java no link count: there hard links are a documented residual risk.
        }
        // SecureDirectoryStream offers no "unix" view, so the count is read by path. The fileKey (device and inode)
        // proves that the path still names the file the handle walk found, whatever the path went through since.
        Map<String, Object> unix = Files.readAttributes(file, "unix:nlink,fileKey", NOFOLLOW_LINKS);
        if (!Objects.equals(unix.get("fileKey"), attrs.fileKey())) {
            throw ConfinedPath.changed(file);
        }
        return (Integer) unix.get("nlink");
    }
}
