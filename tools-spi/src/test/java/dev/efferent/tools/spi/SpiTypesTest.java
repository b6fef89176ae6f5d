package dev.efferent.tools.spi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SpiTypesTest {
    @TempDir
    Path dir;

    @Test
    void toolNamesFollowMcpConventions() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ToolSpec.local("Read-File", "", "{}", ToolHints.READ_ONLY));
        assertEquals("tool name 'Read-File' is invalid: use 1 to 64 lower case letters, digits and underscores, "
                + "starting with a letter", e.getMessage());
        assertEquals("read_file2", ToolSpec.local("read_file2", "", "{}", ToolHints.READ_ONLY).name());
    }

    @Test
    void paramsOfTheWrongTypeAreNamed() {
        ToolParams params = new ToolParams(Map.of("path", 3, "limit", 2.5, "all", "yes"));
        assertEquals("param 'path' must be a string, got '3'",
                assertThrows(ToolException.class, () -> params.string("path")).getMessage());
        assertEquals("param 'limit' must be an integer, got 2.5",
                assertThrows(ToolException.class, () -> params.integer("limit", 1)).getMessage());
        assertEquals("param 'all' must be true or false, got 'yes'",
                assertThrows(ToolException.class, () -> params.bool("all", false)).getMessage());
        assertEquals("missing required param 'name'",
                assertThrows(ToolException.class, () -> params.string("name")).getMessage());
        assertEquals(7, new ToolParams(Map.of("n", 7L)).integer("n", 0));
    }

    @Test
    void rootsMustBeExistingDirectories() throws IOException {
        Path file = Files.writeString(dir.resolve("f"), "");
        assertEquals("allowed root '" + file + "' is not a directory",
                assertThrows(ToolException.class, () -> AllowedRoots.of(List.of(file))).getMessage());
        assertEquals("no allowed roots configured: set tools.roots to at least one directory",
                assertThrows(ToolException.class, () -> AllowedRoots.of(List.of())).getMessage());
        AllowedRoots roots = AllowedRoots.of(List.of(dir));
        assertEquals(dir.toRealPath().resolve("new/file.txt"), roots.resolve("new/file.txt"));
        assertEquals("new/file.txt", roots.display(roots.resolve("new/file.txt")));
        assertEquals(".", roots.display(roots.resolve("")));
    }

    @Test
    void resultTextJoinsTextContent() {
        ToolResult result = new ToolResult(List.of(new Content.Text("a"), new Content.Image("image/png", "AAAA"),
                new Content.Text("b")), Map.of(), false);
        assertEquals("a\nb", result.text());
        assertEquals(true, ToolResult.error("x").isError());
    }
}
