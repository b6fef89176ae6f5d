package dev.efferent.tools.fs;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** list_dir: a depth-limited tree of a directory with file sizes. Symbolic links are shown, never followed. */
final class ListDirTool implements Tool {
    private static final ToolSpec SPEC = ToolSpec.local("list_dir",
            "List a directory as a tree, 'depth' levels deep (default 2), with file sizes. Hidden entries are left "
                    + "out unless 'include_hidden' is true; symbolic links are shown, not followed.",
            """
            {"type": "object",
             "properties": {
               "path": {"type": "string", "default": ".", "description": "Directory inside a root"},
               "depth": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2},
               "include_hidden": {"type": "boolean", "default": false}
             },
             "additionalProperties": false}
            """, ToolHints.READ_ONLY);

    private final FsLimits limits;

    ListDirTool(FsLimits limits) {
        this.limits = limits;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(ToolParams params, ToolContext context) {
        String shown = params.string("path", ".");
        Path dir = context.roots().resolve(shown);
        if (!Files.isDirectory(dir)) {
            throw new ToolException(Files.exists(dir) ? "'" + shown + "' is a file, not a directory; use stat or read_file"
                    : "directory '" + shown + "' does not exist");
        }
        Listing listing = new Listing((int) params.integer("depth", 2), params.bool("include_hidden", false), context);
        StringBuilder out = new StringBuilder(context.roots().display(dir)).append("/\n");
        try {
            listing.walk(dir, dir, 1, out);
        } catch (IOException e) {
            throw FileSupport.failure("list", shown, e);
        }
        if (listing.truncated) {
            out.append("[… truncated at ").append(limits.maxListEntries())
                    .append(" entries; list a subdirectory or lower the depth]\n");
        }
        Map<String, Object> structured = new LinkedHashMap<>();
        structured.put("path", context.roots().display(dir));
        structured.put("entries", listing.entries);
        structured.put("truncated", listing.truncated);
        return ToolResult.of(out.toString(), structured);
    }

    /** One listing's state: what has been found and whether the cap was reached. */
    private final class Listing {
        private final int depth;
        private final boolean hidden;
        private final ToolContext context;
        private final List<Map<String, Object>> entries = new ArrayList<>();
        private boolean truncated;

        Listing(int depth, boolean hidden, ToolContext context) {
            this.depth = depth;
            this.hidden = hidden;
            this.context = context;
        }

        void walk(Path base, Path dir, int level, StringBuilder out) throws IOException {
            List<Path> children = new ArrayList<>();
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
                for (Path child : stream) {
                    if (hidden || !child.getFileName().toString().startsWith(".")) {
                        children.add(child);
                    }
                }
            }
            children.sort(Comparator.comparing((Path p) -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
                    .thenComparing(p -> p.getFileName().toString()));
            String indent = "  ".repeat(level);
            for (Path child : children) {
                if (entries.size() >= limits.maxListEntries()) {
                    truncated = true;
                    return;
                }
                context.checkCancelled();
                BasicFileAttributes attrs = Files.readAttributes(child, BasicFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS);
                String name = child.getFileName().toString();
                String rel = base.relativize(child).toString();
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("path", rel);
                if (attrs.isSymbolicLink()) {
                    String target = Files.readSymbolicLink(child).toString();
                    out.append(indent).append(name).append(" -> ").append(target).append('\n');
                    entry.put("type", "symlink");
                    entry.put("target", target);
                    entries.add(entry);
                } else if (attrs.isDirectory()) {
                    out.append(indent).append(name).append("/\n");
                    entry.put("type", "directory");
                    entries.add(entry);
                    if (level < depth) {
                        walk(base, child, level + 1, out);
                        if (truncated) {
                            return;
                        }
                    }
                } else {
                    out.append(indent).append(name).append(" (").append(FileSupport.size(attrs.size())).append(")\n");
                    entry.put("type", attrs.isRegularFile() ? "file" : "other");
                    entry.put("size", attrs.size());
                    entries.add(entry);
                }
            }
        }
    }
}
