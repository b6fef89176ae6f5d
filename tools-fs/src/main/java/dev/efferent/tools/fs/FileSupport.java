package dev.efferent.tools.fs;

import dev.efferent.tools.spi.ToolException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Set;

/** File helpers the tools share: text checks, atomic writes, readable sizes and I/O error messages. */
final class FileSupport {
    /** How much of a file is sniffed for NUL bytes to decide that it is binary. */
    static final int SNIFF_BYTES = 8192;

    private FileSupport() {
    }

    /** Whether the file's first bytes contain a NUL, the mark of a binary file. */
    static boolean looksBinary(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(SNIFF_BYTES);
            for (byte b : head) {
                if (b == 0) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The whole file as UTF-8 text, refusing binary or non-UTF-8 files with a message naming the path. */
    static String readText(Path file, String shown) throws IOException {
        if (looksBinary(file)) {
            throw binary(shown);
        }
        byte[] bytes = Files.readAllBytes(file);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ToolException("file '" + shown + "' is not UTF-8 text; only text files can be read or edited");
        }
    }

    static ToolException binary(String shown) {
        return new ToolException("file '" + shown + "' is binary (it contains NUL bytes); "
                + "read_file and edit_file work on text files only");
    }

    /**
     * Writes {@code bytes} to {@code target} atomically: a temporary file beside it, then a rename over it, so a
     * reader never sees half a file. An existing file keeps its permissions.
     */
    static void writeAtomically(Path target, byte[] bytes) throws IOException {
        Path dir = target.getParent();
        Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
        try {
            Files.write(temp, bytes);
            copyPermissions(target, temp);
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static void copyPermissions(Path from, Path to) throws IOException {
        if (!Files.exists(from)) {
            // A new file gets the usual rw-r--r-- rather than the temp file's private rw-------.
            PosixFileAttributeView view = Files.getFileAttributeView(to, PosixFileAttributeView.class);
            if (view != null) {
                view.setPermissions(PosixFilePermissions.fromString("rw-r--r--"));
            }
            return;
        }
        PosixFileAttributeView source = Files.getFileAttributeView(from, PosixFileAttributeView.class);
        PosixFileAttributeView target = Files.getFileAttributeView(to, PosixFileAttributeView.class);
        if (source != null && target != null) {
            target.setPermissions(Set.copyOf(source.readAttributes().permissions()));
        }
    }

    /** {@code bytes} as people read sizes: {@code 512 B}, {@code 1.5 KiB}, {@code 3.0 MiB}. */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        double value = bytes;
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** An I/O failure as a message that names the path. */
    static ToolException failure(String action, String shown, IOException e) {
        if (e instanceof NoSuchFileException) {
            return new ToolException("cannot " + action + " '" + shown + "': it does not exist");
        }
        if (e instanceof AccessDeniedException) {
            return new ToolException("cannot " + action + " '" + shown + "': permission denied");
        }
        return new ToolException("cannot " + action + " '" + shown + "': " + e.getMessage());
    }
}
