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
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

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

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(ToolParams params, ToolContext context) {
        String shown = params.string("path");
        Path path = context.roots().resolve(shown);
        if (!Files.exists(path)) {
            throw new ToolException("path '" + shown + "' does not exist");
        }
        Map<String, Object> info = new LinkedHashMap<>();
        try {
            BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
            info.put("path", context.roots().display(path));
            info.put("type", attrs.isDirectory() ? "directory" : attrs.isRegularFile() ? "file" : "other");
            info.put("size", attrs.size());
            info.put("modified", attrs.lastModifiedTime().toInstant().toString());
            if (Files.getFileStore(path).supportsFileAttributeView("posix")) {
                PosixFileAttributes posix = Files.readAttributes(path, PosixFileAttributes.class);
                info.put("permissions", PosixFilePermissions.toString(posix.permissions()));
                info.put("owner", posix.owner().getName());
            }
            info.put("readable", Files.isReadable(path));
            info.put("writable", Files.isWritable(path));
        } catch (IOException e) {
            throw FileSupport.failure("stat", shown, e);
        }
        StringBuilder out = new StringBuilder();
        info.forEach((k, v) -> out.append(k).append(": ").append(v).append('\n'));
        return ToolResult.of(out.toString(), info);
    }
}
