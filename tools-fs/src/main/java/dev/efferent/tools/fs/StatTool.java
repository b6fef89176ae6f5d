package dev.efferent.tools.fs;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** stat: a path's type, size, modification time and permissions. */
final class StatTool implements Tool {
    private static final ToolSpec SPEC = ToolSpec.local("stat",
            "Describe a file or directory: type, size, last modification time and permissions.",
            """
            {"type": "object",
             "properties": {
               "path": {"type": "string", "minLength": 1, "description": "Path inside a root"}
             },
             "required": ["path"],
             "additionalProperties": false}
            """, ToolHints.READ_ONLY);

    private final FsLimits limits;

    StatTool(FsLimits limits) {
        this.limits = limits;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(ToolParams params, ToolContext context) {
        String shown = params.string("path");
        Map<String, Object> info = new LinkedHashMap<>();
        try (ConfinedPath path = ConfinedPath.open(context.roots(), shown, limits)) {
            BasicFileAttributes attrs = path.attributes()
                    .orElseThrow(() -> new ToolException("path '" + shown + "' does not exist"));
            info.put("path", context.roots().display(path.path()));
            // Described, never opened: a FIFO or device is reported as such, not read.
            info.put("type", FileKind.of(path.path(), attrs).label());
            info.put("size", attrs.size());
            info.put("modified", attrs.lastModifiedTime().toInstant().toString());
            Optional<PosixFileAttributes> posix = path.posixAttributes();
            if (posix.isPresent()) {
                info.put("permissions", PosixFilePermissions.toString(posix.get().permissions()));
                info.put("owner", posix.get().owner().getName());
            }
            // access(2) has no handle form in Java; these two are hints about the path, not about the handle.
            info.put("readable", Files.isReadable(path.path()));
            info.put("writable", Files.isWritable(path.path()));
        } catch (NoSuchFileException e) {
            throw new ToolException("path '" + shown + "' does not exist");
        } catch (IOException e) {
            throw FileSupport.failure("stat", shown, e);
        }
        StringBuilder out = new StringBuilder();
        info.forEach((k, v) -> out.append(k).append(": ").append(v).append('\n'));
        return ToolResult.of(out.toString(), info);
    }
}
