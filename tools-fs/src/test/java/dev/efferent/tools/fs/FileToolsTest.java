package dev.efferent.tools.fs;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolResult;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileToolsTest extends FsToolsTest {

    @Override
    Settings settings() {
        // Small caps so truncation is easy to reach.
        return key -> switch (key) {
            case "max-read-bytes" -> Optional.of("64");
            case "max-list-entries" -> Optional.of("5");
            default -> Optional.empty();
        };
    }

    @Test
    void readFileWithOffsetAndLimit() throws IOException {
        Files.writeString(root.resolve("lines.txt"), "one\ntwo\nthree\nfour\n");
        assertEquals("one\ntwo\nthree\nfour\n", ok("read_file", Map.of("path", "lines.txt")).text());
        ToolResult middle = ok("read_file", Map.of("path", "lines.txt", "offset", 2, "limit", 2));
        assertEquals("two\nthree\n", middle.text());
        assertEquals(2L, middle.structured().get("startLine"));
        assertEquals(3L, middle.structured().get("endLine"));
        assertEquals(true, middle.structured().get("moreLines"));
        assertEquals("offset 9 is past the end of 'lines.txt', which has 4 lines",
                error("read_file", Map.of("path", "lines.txt", "offset", 9)));
    }

    @Test
    void readFileStopsAtTheSizeCapWithAMarker() throws IOException {
        StringBuilder text = new StringBuilder();
        for (int i = 1; i <= 20; i++) {
            text.append("line ").append(i).append('\n');
        }
        Files.writeString(root.resolve("big.txt"), text);
        String out = ok("read_file", Map.of("path", "big.txt")).text();
        assertTrue(out.startsWith("line 1\nline 2\n"), out);
        assertTrue(out.contains("[… truncated at 64 bytes; lines 1-"), out);
        assertTrue(out.contains("Read on with offset="), out);
    }

    @Test
    void readFileRefusesBinaryFilesAndDirectories() throws IOException {
        Files.write(root.resolve("image.png"), new byte[]{(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 13});
        assertEquals("file 'image.png' is binary (it contains NUL bytes); read_file and edit_file work on text files only",
                error("read_file", Map.of("path", "image.png")));
        Files.write(root.resolve("latin1.txt"), new byte[]{'c', 'a', 'f', (byte) 0xE9, '\n'});
        assertTrue(error("read_file", Map.of("path", "latin1.txt")).startsWith("file 'latin1.txt' is not UTF-8 text"));
        Files.createDirectories(root.resolve("dir"));
        assertEquals("'dir' is a directory; use list_dir to see what it holds", error("read_file", Map.of("path", "dir")));
        assertEquals("file 'missing.txt' does not exist", error("read_file", Map.of("path", "missing.txt")));
    }

    @Test
    void paramsAreValidatedBeforeTheToolRuns() {
        String missing = error("read_file", Map.of());
        assertTrue(missing.startsWith("invalid params for read_file: ") && missing.contains("path"), missing);
        String wrongType = error("read_file", Map.of("path", "a", "offset", "two"));
        assertTrue(wrongType.contains("$.offset"), wrongType);
    }

    @Test
    void writeFileCreatesParentsAndReplacesAtomically() throws IOException {
        ToolResult created = ok("write_file", Map.of("path", "a/b/c.txt", "content", "hello"));
        assertEquals("Created a/b/c.txt (5 B)", created.text());
        assertEquals("hello", Files.readString(root.resolve("a/b/c.txt")));
        ToolResult replaced = ok("write_file", Map.of("path", "a/b/c.txt", "content", "bye"));
        assertEquals("Replaced a/b/c.txt (3 B)", replaced.text());
        assertEquals("bye", Files.readString(root.resolve("a/b/c.txt")));
        try (var files = Files.list(root.resolve("a/b"))) {
            assertEquals(List.of("c.txt"), files.map(p -> p.getFileName().toString()).toList(), "no temp files left");
        }
        Files.createDirectories(root.resolve("d"));
        assertEquals("'d' is a directory; give the path of a file inside it",
                error("write_file", Map.of("path", "d", "content", "x")));
    }

    @Test
    void writeFileTakesNamesUpToTheFileSystemsLimit() throws IOException {
        String name = "é".repeat(120) + ".txt"; // 244 bytes of UTF-8: the temporary name beside it must stay shorter
        ok("write_file", Map.of("path", name, "content", "long"));
        ok("write_file", Map.of("path", name, "content", "longer"));
        assertEquals("longer", Files.readString(root.resolve(name)));
    }

    @Test
    void writeFileKeepsTheExistingFilesPermissions() throws IOException {
        Path script = Files.writeString(root.resolve("run.sh"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
        ok("write_file", Map.of("path", "run.sh", "content", "#!/bin/sh\necho hi\n"));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(script)));
    }

    @Test
    void editFileReplacesExactlyOneOccurrence() throws IOException {
        Files.writeString(root.resolve("f.txt"), "alpha beta gamma");
        assertEquals("Replaced 1 occurrence in f.txt",
                ok("edit_file", Map.of("path", "f.txt", "old_text", "beta", "new_text", "BETA")).text());
        assertEquals("alpha BETA gamma", Files.readString(root.resolve("f.txt")));
    }

    @Test
    void editFileFailsWhenTheTextIsAbsentOrAmbiguous() throws IOException {
        Files.writeString(root.resolve("f.txt"), "x = 1\nx = 1\n");
        assertEquals("old_text was not found in 'f.txt'; it must match the file exactly, including spaces and line breaks",
                error("edit_file", Map.of("path", "f.txt", "old_text", "y = 1", "new_text", "y = 2")));
        assertEquals("old_text occurs 2 times in 'f.txt'; include more surrounding text to make it unique, "
                        + "or set replace_all to true",
                error("edit_file", Map.of("path", "f.txt", "old_text", "x = 1", "new_text", "x = 2")));
        assertEquals("x = 1\nx = 1\n", Files.readString(root.resolve("f.txt")), "nothing changed");
        assertEquals("Replaced 2 occurrences in f.txt", ok("edit_file",
                Map.of("path", "f.txt", "old_text", "x = 1", "new_text", "x = 2", "replace_all", true)).text());
        assertEquals("x = 2\nx = 2\n", Files.readString(root.resolve("f.txt")));
        assertEquals("file 'nope.txt' does not exist",
                error("edit_file", Map.of("path", "nope.txt", "old_text", "a", "new_text", "b")));
    }

    @Test
    void listDirShowsATreeWithSizesToTheGivenDepth() throws IOException {
        Files.createDirectories(root.resolve("src/main"));
        Files.writeString(root.resolve("src/main/App.java"), "class App {}");
        Files.writeString(root.resolve("README.md"), "x".repeat(2048));
        Files.writeString(root.resolve(".hidden"), "");
        assertEquals("./\n  src/\n    main/\n  README.md (2.0 KiB)\n",
                ok("list_dir", Map.of("depth", 2)).text());
        String deep = ok("list_dir", Map.of("depth", 3, "include_hidden", true)).text();
        assertTrue(deep.contains("      App.java (12 B)"), deep);
        assertTrue(deep.contains("  .hidden (0 B)"), deep);
        assertEquals("'README.md' is a file, not a directory; use stat or read_file",
                error("list_dir", Map.of("path", "README.md")));
        assertTrue(error("list_dir", Map.of("depth", 11)).contains("$.depth"));
    }

    @Test
    void listDirStopsAtTheEntryCap() throws IOException {
        for (int i = 0; i < 9; i++) {
            Files.writeString(root.resolve("f" + i), "");
        }
        ToolResult listing = ok("list_dir", Map.of());
        assertTrue(listing.text().endsWith("[… truncated at 5 entries; list a subdirectory or lower the depth]\n"),
                listing.text());
        assertEquals(true, listing.structured().get("truncated"));
    }

    @Test
    void searchFilesReportsFileAndLine() throws IOException {
        Files.createDirectories(root.resolve("src"));
        Files.writeString(root.resolve("src/A.java"), "class A {\n  // TODO fix\n}\n");
        Files.writeString(root.resolve("src/B.txt"), "todo later\n");
        Files.write(root.resolve("src/bin.dat"), new byte[]{'T', 'O', 'D', 'O', 0});
        Files.createDirectories(root.resolve(".git"));
        Files.writeString(root.resolve(".git/HEAD"), "TODO in git\n");
        assertEquals("src/A.java:2:   // TODO fix\n", ok("search_files", Map.of("pattern", "TODO")).text());
        String both = ok("search_files", Map.of("pattern", "todo", "ignore_case", true)).text();
        assertTrue(both.contains("src/A.java:2:") && both.contains("src/B.txt:1: todo later"), both);
        assertEquals("src/B.txt:1: todo later\n",
                ok("search_files", Map.of("pattern", "todo", "ignore_case", true, "glob", "*.txt")).text());
        assertTrue(ok("search_files", Map.of("pattern", "absent")).text().startsWith("No matches for /absent/"));
        assertTrue(error("search_files", Map.of("pattern", "(")).startsWith("pattern '(' is not a valid regular expression"));
    }

    @Test
    void searchFilesStopsDescendingATreeMadeDeepOnPurpose() throws IOException {
        Path deep = root;
        for (int i = 0; i < 200; i++) {
            deep = deep.resolve("d");
            if (i == 5) {
                Files.createDirectories(deep);
                Files.writeString(deep.resolve("near.txt"), "needle\n");
            }
        }
        Files.createDirectories(deep);
        Files.writeString(deep.resolve("far.txt"), "needle\n");
        ToolResult result = ok("search_files", Map.of("pattern", "needle"));
        assertTrue(result.text().startsWith("d/d/d/d/d/d/near.txt:1: needle\n"), result.text());
        assertFalse(result.text().contains("far.txt"), result.text());
        assertEquals(1, result.structured().get("unreadableSkipped"));
    }

    @Test
    void searchFilesCapsMatches() throws IOException {
        Files.writeString(root.resolve("many.txt"), "hit\n".repeat(50));
        ToolResult result = ok("search_files", Map.of("pattern", "hit", "max_matches", 3));
        assertEquals(4, result.text().lines().count());
        assertTrue(result.text().endsWith("[… stopped at 3 matches; narrow the pattern, path or glob]\n"));
    }

    @Test
    void statDescribesFilesAndDirectories() throws IOException {
        Files.writeString(root.resolve("f.txt"), "12345");
        ToolResult file = ok("stat", Map.of("path", "f.txt"));
        assertEquals("file", file.structured().get("type"));
        assertEquals(5L, file.structured().get("size"));
        assertTrue(file.text().contains("permissions: rw-"), file.text());
        Files.createDirectories(root.resolve("d"));
        assertEquals("directory", ok("stat", Map.of("path", "d")).structured().get("type"));
        assertEquals("path 'nope' does not exist", error("stat", Map.of("path", "nope")));
        assertFalse(file.isError());
    }
}
