package dev.efferent.tools.fs;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Optional;

/** write_file: creates or replaces a file atomically, creating its parent directories. */
final class WriteFileTool implements Tool {
    private static final ToolSpec SPEC = ToolSpec.local("write_file",
            "Create or replace a UTF-8 text file with 'content', creating missing parent directories. "
                    + "The replacement is atomic: readers see the old file or the new one, never half of it.",
            """
            {"type": "object",
             "properties": {
               "path": {"type": "string", "minLength": 1, "description": "File path inside a root"},
               "content": {"type": "string", "description": "The whole new content"}
             },
             "required": ["path", "content"],
             "additionalProperties": false}
            """, new ToolHints(false, true, true, false));

    private final FsLimits limits;

    WriteFileTool(FsLimits limits) {
        this.limits = limits;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(ToolParams params, ToolContext context) {
        String shown = params.string("path");
        byte[] bytes = params.string("content").getBytes(StandardCharsets.UTF_8);
        boolean existed;
        Path written;
        try (ConfinedPath file = ConfinedPath.openCreatingParents(context.roots(), shown, limits)) {
            Optional<BasicFileAttributes> attrs = file.attributes();
            if (attrs.isPresent() && attrs.get().isDirectory()) {
                throw new ToolException("'" + shown + "' is a directory; give the path of a file inside it");
            }
            existed = attrs.isPresent();
            file.replace(bytes);
            written = file.path();
        } catch (IOException e) {
            throw FileSupport.failure("write", shown, e);
        }
        String path = context.roots().display(written);
        return ToolResult.of((existed ? "Replaced " : "Created ") + path + " (" + FileSupport.size(bytes.length) + ")",
                Map.of("path", path, "bytes", bytes.length, "created", !existed));
    }
}
