package dev.efferent.tools.fs;

import dev.efferent.tools.spi.ToolResult;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pipes and sockets inside a root are refused before they are opened, so no call blocks on them. Without the check
 * read_file on a FIFO with no writer would block in native open() for ever; each test has a timeout to catch that.
 */
class SpecialFilesTest extends FsToolsTest {

    @BeforeEach
    void onUnix() {
        requireHere(root.getFileSystem().supportedFileAttributeViews().contains("unix"), "FIFOs and sockets need Unix");
    }

    @Test
    @Timeout(10)
    void aFifoIsNeitherReadWrittenNorEdited() throws Exception {
        Path fifo = mkfifo("pipe");
        String refusal = "'pipe' is a named pipe (FIFO), not a regular file; "
                + "the file tools read and write regular files only";
        assertEquals(refusal, error("read_file", Map.of("path", "pipe")));
        assertEquals(refusal, error("edit_file", Map.of("path", "pipe", "old_text", "a", "new_text", "b")));
        assertEquals(refusal, error("write_file", Map.of("path", "pipe", "content", "x")));
        assertTrue(attributes(fifo).isOther(), "write_file must leave the FIFO in place");
    }

    @Test
    @Timeout(10)
    void aSocketIsNeitherReadWrittenNorEdited() throws Exception {
        try (ServerSocketChannel ignored = listen("sock")) {
            String refusal = "'sock' is a socket, not a regular file; the file tools read and write regular files only";
            assertEquals(refusal, error("read_file", Map.of("path", "sock")));
            assertEquals(refusal, error("edit_file", Map.of("path", "sock", "old_text", "a", "new_text", "b")));
            assertEquals(refusal, error("write_file", Map.of("path", "sock", "content", "x")));
            assertTrue(attributes(root.resolve("sock")).isOther(), "write_file must leave the socket in place");
        }
    }

    @Test
    @Timeout(10)
    void statAndListDirDescribeThemWithoutOpeningThem() throws Exception {
        mkfifo("pipe");
        try (ServerSocketChannel ignored = listen("sock")) {
            assertEquals("fifo", ok("stat", Map.of("path", "pipe")).structured().get("type"));
            assertEquals("socket", ok("stat", Map.of("path", "sock")).structured().get("type"));
            String listing = ok("list_dir", Map.of("path", ".")).structured().get("entries").toString();
            assertTrue(listing.contains("path=pipe, type=fifo") && listing.contains("path=sock, type=socket"), listing);
        }
    }

    @Test
    @Timeout(10)
    void searchFilesSkipsAndCountsThem() throws Exception {
        Files.writeString(root.resolve("notes.txt"), "a needle here\n");
        mkfifo("pipe.txt");
        try (ServerSocketChannel ignored = listen("sock.txt")) {
            ToolResult result = ok("search_files", Map.of("pattern", "needle"));
            assertEquals("notes.txt:1: a needle here\n[2 pipes, sockets or devices skipped: the file tools read regular "
                    + "files only]\n", result.text());
            assertEquals(2, result.structured().get("specialSkipped"));
            assertEquals(1, result.structured().get("filesSearched"));
            // Named directly, a FIFO is skipped the same way.
            assertEquals(1, ok("search_files", Map.of("pattern", "needle", "path", "pipe.txt"))
                    .structured().get("specialSkipped"));
            // Ones the glob leaves out are not mentioned.
            assertEquals(0, ok("search_files", Map.of("pattern", "needle", "glob", "notes*"))
                    .structured().get("specialSkipped"));
        }
    }

    private Path mkfifo(String name) throws IOException, InterruptedException {
        Path fifo = root.resolve(name);
        Process process = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, process.waitFor(), "mkfifo " + fifo);
        return fifo;
    }

    private ServerSocketChannel listen(String name) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(root.resolve(name)));
        return server;
    }

    private static BasicFileAttributes attributes(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class, NOFOLLOW_LINKS);
    }

    /** Skips where the machine lacks what the test needs, but never in CI (CI=true), where every test must run. */
    private static void requireHere(boolean condition, String what) {
        if (!condition && "true".equals(System.getenv("CI"))) {
            Assertions.fail(what + "; with CI=true this test must run");
        }
        Assumptions.assumeTrue(condition, what);
    }
}
