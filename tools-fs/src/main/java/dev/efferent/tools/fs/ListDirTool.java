package dev.efferent.tools.fs;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
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
        Listing listing = new Listing((int) params.integer("depth", 2), params.bool("include_hidden", false), context);
        Path dir;
        StringBuilder out = new StringBuilder();
        try (ConfinedPath start = ConfinedPath.open(context.roots(), shown, limits)) {
            BasicFileAttributes attrs = start.attributes()
                    .orElseThrow(() -> new ToolException("directory '" + shown + "' does not exist"));
            if (!attrs.isDirectory()) {
                throw new ToolException("'" + shown + "' is a file, not a directory; use stat or read_file");
            }
            dir = start.path();
            out.append(context.roots().display(dir)).append("/\n");
            listing.walk(dir, start, 1, out);
        } catch (NoSuchFileException e) {
            throw new ToolException("directory '" + shown + "' does not exist");
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

        void walk(Path base, ConfinedPath entry, int level, StringBuilder out) throws IOException {
            try (ConfinedPath dir = entry.openDirectory()) {
                List<Child> children = new ArrayList<>();
                for (String name : dir.names()) {
                    if (hidden || !name.startsWith(".")) {
                        ConfinedPath child = dir.child(name);
                        if (context.roots().isHidden(child.path())) {
                            // Credentials (tools.shell.hide): not listed, not walked into.
                            continue;
                        }
                        // An entry deleted since the directory was read is simply no longer there to list.
                        child.attributes().ifPresent(attrs -> children.add(new Child(name, child, attrs)));
                    }
                }
                children.sort(Comparator.comparing((Child c) -> !c.attrs().isDirectory()).thenComparing(Child::name));
                list(base, children, level, out);
            }
        }

        private void list(Path base, List<Child> children, int level, StringBuilder out) throws IOException {
            String indent = "  ".repeat(level);
            for (Child child : children) {
                if (entries.size() >= limits.maxListEntries()) {
                    truncated = true;
                    return;
                }
                context.checkCancelled();
                BasicFileAttributes attrs = child.attrs();
                String name = child.name();
                String rel = base.relativize(child.path().path()).toString();
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("path", rel);
                if (attrs.isSymbolicLink()) {
                    String target = child.path().readSymbolicLink().toString();
                    out.append(indent).append(name).append(" -> ").append(target).append('\n');
                    entry.put("type", "symlink");
                    entry.put("target", target);
                    entries.add(entry);
                } else if (attrs.isDirectory()) {
                    out.append(indent).append(name).append("/\n");
                    entry.put("type", "directory");
                    entries.add(entry);
                    if (level < depth) {
                        walk(base, child.path(), level + 1, out);
                        if (truncated) {
                            return;
                        }
                    }
                } else {
                    out.append(indent).append(name).append(" (").append(FileSupport.size(attrs.size())).append(")\n");
                    entry.put("type", FileKind.of(child.path().path(), attrs).label());
                    entry.put("size", attrs.size());
                    entries.add(entry);
                }
            }
        }
    }

    /** A directory entry with the attributes it had when listed (links not followed). */
    private record Child(String name, ConfinedPath path, BasicFileAttributes attrs) {
    }
}
