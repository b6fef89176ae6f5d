package dev.efferent.tools.fs;

import dev.efferent.tools.spi.ToolException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;

/** File helpers the tools share: text checks, readable sizes and I/O error messages. */
final class FileSupport {
    /** How much of a file is sniffed for NUL bytes to decide that it is binary. */
    static final int SNIFF_BYTES = 8192;

    private FileSupport() {
    }

    /**
     * Whether the channel's first bytes contain a NUL, the mark of a binary file. Leaves the channel at its start,
     * so the file is read through the one channel that was opened (and checked) once.
     */
    static boolean looksBinary(SeekableByteChannel channel) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(SNIFF_BYTES);
        while (head.hasRemaining() && channel.read(head) >= 0) {
            // keep reading: a channel may return fewer bytes than asked for
        }
        channel.position(0);
        head.flip();
        while (head.hasRemaining()) {
            if (head.get() == 0) {
                return true;
            }
        }
        return false;
    }

    /** The whole file as UTF-8 text, refusing binary or non-UTF-8 files with a message naming the path. */
    static String readText(SeekableByteChannel channel, String shown) throws IOException {
        if (looksBinary(channel)) {
            throw binary(shown);
        }
        byte[] bytes = Channels.newInputStream(channel).readAllBytes();
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
