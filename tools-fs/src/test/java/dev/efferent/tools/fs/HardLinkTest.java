package dev.efferent.tools.fs;

import dev.efferent.plugin.SettingsException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A file with a second hard link may share its content with a file outside the roots: refused unless allowed. */
class HardLinkTest extends FsToolsTest {
    private static final String REFUSED = "file 'linked.txt' has 2 hard links, so its content may be shared with a "
            + "file outside the allowed roots; the file tools refuse hard-linked files. If this file is meant to be "
            + "used, set tools.fs.allow-hardlinks: true";

    private Path secret;

    @BeforeEach
    void linkAnOutsideFileIntoTheRoot() throws IOException {
        secret = Files.writeString(outside.resolve("secret.txt"), "top secret\n");
        Files.createLink(root.resolve("linked.txt"), secret);
    }

    @Test
    void hardLinkedFileIsRefusedByDefault() throws IOException {
        assertEquals(REFUSED, error("read_file", Map.of("path", "linked.txt")));
        assertEquals(REFUSED, error("edit_file", Map.of("path", "linked.txt", "old_text", "top", "new_text", "no")));
        assertEquals(REFUSED, error("write_file", Map.of("path", "linked.txt", "content", "x")));
        assertEquals("top secret\n", Files.readString(secret));
        assertEquals("top secret\n", Files.readString(root.resolve("linked.txt")), "the link is left as it was");

        String found = ok("search_files", Map.of("pattern", "secret")).text();
        assertFalse(found.contains("top secret"), found);
        assertTrue(found.contains("[1 hard-linked files skipped"), found);
        assertEquals("file", ok("stat", Map.of("path", "linked.txt")).structured().get("type"),
                "stat reads no content, so it describes a hard-linked file");
    }

    @Test
    void hardLinkedFileIsUsedWhenAllowed() throws IOException {
        startExecutor(key -> "allow-hardlinks".equals(key) ? Optional.of("true") : Optional.empty());
        assertEquals("top secret\n", ok("read_file", Map.of("path", "linked.txt")).text());
        assertEquals("linked.txt:1: top secret\n", ok("search_files", Map.of("pattern", "secret")).text());
        ok("edit_file", Map.of("path", "linked.txt", "old_text", "top", "new_text", "no"));
        assertEquals("no secret\n", Files.readString(root.resolve("linked.txt")));
        // The atomic replace renames a new file over the name, so the link is broken and the other name untouched.
        assertEquals("top secret\n", Files.readString(secret));
    }

    @Test
    void aSecondLinkMadeInsideTheRootIsRefusedToo() throws IOException {
        Files.writeString(root.resolve("a.txt"), "a\n");
        Files.createLink(root.resolve("b.txt"), root.resolve("a.txt"));
        assertTrue(error("read_file", Map.of("path", "b.txt")).startsWith("file 'b.txt' has 2 hard links"));
    }

    @Test
    void aBadSettingIsNamed() {
        SettingsException e = assertThrows(SettingsException.class,
                () -> FsLimits.from(key -> "allow-hardlinks".equals(key) ? Optional.of("yes") : Optional.empty()));
        assertEquals("setting 'allow-hardlinks' must be true or false, got 'yes'", e.getMessage());
    }
}
