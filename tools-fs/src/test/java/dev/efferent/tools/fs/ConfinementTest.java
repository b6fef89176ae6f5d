package dev.efferent.tools.fs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every path stays inside the roots: dot-dot, absolute paths and symbolic links cannot lead out. */
class ConfinementTest extends FsToolsTest {

    private String roots() throws IOException {
        return "[" + root.toRealPath() + "]";
    }

    @Test
    void dotDotEscapeIsRefusedNamingPathAndRoots() throws IOException {
        Files.writeString(outside.resolve("secret.txt"), "top secret");
        String relative = "../" + outside.getFileName() + "/secret.txt";
        String error = error("read_file", Map.of("path", relative));
        assertTrue(error.startsWith("path '" + relative + "' ("), error);
        assertTrue(error.endsWith(") is outside the allowed roots " + roots()), error);
    }

    @Test
    void absolutePathOutsideTheRootsIsRefused() throws IOException {
        Path secret = Files.writeString(outside.resolve("secret.txt"), "top secret");
        String error = error("read_file", Map.of("path", secret.toString()));
        assertTrue(error.contains("is outside the allowed roots " + roots()), error);
        assertTrue(error("stat", Map.of("path", "/etc/passwd")).contains("outside the allowed roots"));
    }

    @Test
    void absolutePathInsideTheRootsIsFine() throws IOException {
        Path file = Files.writeString(root.resolve("in.txt"), "inside\n");
        assertEquals("inside\n", ok("read_file", Map.of("path", file.toString())).text());
    }

    @Test
    void symlinkLeadingOutsideIsRefusedForReadAndWrite() throws IOException {
        Files.writeString(outside.resolve("secret.txt"), "top secret");
        Files.createSymbolicLink(root.resolve("escape"), outside);
        String error = error("read_file", Map.of("path", "escape/secret.txt"));
        assertTrue(error.startsWith("path 'escape/secret.txt' leads through a symbolic link to '"), error);
        assertTrue(error.endsWith("', which is outside the allowed roots " + roots()), error);

        String write = error("write_file", Map.of("path", "escape/new.txt", "content", "x"));
        assertTrue(write.contains("leads through a symbolic link"), write);
        assertFalse(Files.exists(outside.resolve("new.txt")));

        String edit = error("edit_file", Map.of("path", "escape/secret.txt", "old_text", "top", "new_text", "no"));
        assertTrue(edit.contains("leads through a symbolic link"), edit);
        assertEquals("top secret", Files.readString(outside.resolve("secret.txt")));
    }

    @Test
    void symlinkToAFileOutsideIsRefused() throws IOException {
        Path secret = Files.writeString(outside.resolve("secret.txt"), "top secret");
        Files.createSymbolicLink(root.resolve("link.txt"), secret);
        assertTrue(error("read_file", Map.of("path", "link.txt")).contains("leads through a symbolic link"));
        assertTrue(error("stat", Map.of("path", "link.txt")).contains("leads through a symbolic link"));
    }

    @Test
    void danglingSymlinkIsRefusedRatherThanWrittenThrough() throws IOException {
        Files.createSymbolicLink(root.resolve("dangling"), outside.resolve("not-yet"));
        String error = error("write_file", Map.of("path", "dangling", "content", "x"));
        assertEquals("path 'dangling' is a symbolic link whose target does not exist", error);
        assertFalse(Files.exists(outside.resolve("not-yet")));
    }

    @Test
    void symlinkInsideTheRootsIsFollowed() throws IOException {
        Files.createDirectories(root.resolve("real"));
        Files.writeString(root.resolve("real/a.txt"), "a\n");
        Files.createSymbolicLink(root.resolve("alias"), root.resolve("real"));
        assertEquals("a\n", ok("read_file", Map.of("path", "alias/a.txt")).text());
    }

    @Test
    void writingThroughAFileLinkLeadingOutsideIsRefused() throws IOException {
        Path secret = Files.writeString(outside.resolve("secret.txt"), "top secret");
        Files.createSymbolicLink(root.resolve("link.txt"), secret);
        String write = error("write_file", Map.of("path", "link.txt", "content", "x"));
        assertTrue(write.startsWith("path 'link.txt' leads through a symbolic link to '"), write);
        assertEquals("top secret", Files.readString(secret));
        assertTrue(Files.isSymbolicLink(root.resolve("link.txt")), "the link is left as it was");
    }

    @Test
    void writingThroughALinkInsideTheRootsReplacesItsTarget() throws IOException {
        // Links inside the roots are resolved to their real target before the handle walk, which then opens that
        // target without following anything; so the link stays and its target gets the new content.
        Files.writeString(root.resolve("real.txt"), "old");
        Files.createSymbolicLink(root.resolve("alias.txt"), root.resolve("real.txt"));
        assertEquals("Replaced real.txt (3 B)", ok("write_file", Map.of("path", "alias.txt", "content", "new")).text());
        assertEquals("new", Files.readString(root.resolve("real.txt")));
        assertTrue(Files.isSymbolicLink(root.resolve("alias.txt")));
    }

    @Test
    void searchAndListDoNotFollowLinksOutside() throws IOException {
        Files.writeString(outside.resolve("secret.txt"), "needle outside");
        Files.writeString(root.resolve("mine.txt"), "needle inside");
        Files.createSymbolicLink(root.resolve("escape"), outside);
        String found = ok("search_files", Map.of("pattern", "needle")).text();
        assertEquals("mine.txt:1: needle inside\n", found);
        String listing = ok("list_dir", Map.of("depth", 3)).text();
        assertTrue(listing.contains("escape -> " + outside), listing);
        assertFalse(listing.contains("secret.txt"), listing);
    }
}
