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
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;

/** edit_file: replaces an exact piece of text, which must occur once unless every occurrence is wanted. */
final class EditFileTool implements Tool {
    private static final ToolSpec SPEC = ToolSpec.local("edit_file",
            "Replace the exact text 'old_text' with 'new_text' in a UTF-8 text file. Fails if 'old_text' is absent, "
                    + "or occurs more than once unless 'replace_all' is true.",
            """
            {"type": "object",
             "properties": {
               "path": {"type": "string", "minLength": 1, "description": "File path inside a root"},
               "old_text": {"type": "string", "minLength": 1, "description": "The exact text to replace"},
               "new_text": {"type": "string", "description": "The text to put in its place"},
               "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence"}
             },
             "required": ["path", "old_text", "new_text"],
             "additionalProperties": false}
            """, new ToolHints(false, true, false, false));

    private final FsLimits limits;

    EditFileTool(FsLimits limits) {
        this.limits = limits;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(ToolParams params, ToolContext context) {
        String shown = params.string("path");
        String oldText = params.string("old_text");
        String newText = params.string("new_text");
        boolean replaceAll = params.bool("replace_all", false);
        if (oldText.equals(newText)) {
            throw new ToolException("old_text and new_text are the same; nothing to change in '" + shown + "'");
        }
        try (ConfinedPath file = ConfinedPath.open(context.roots(), shown, limits)) {
            BasicFileAttributes attrs = file.attributes()
                    .orElseThrow(() -> new ToolException("file '" + shown + "' does not exist"));
            if (attrs.isDirectory()) {
                throw new ToolException("'" + shown + "' is a directory, not a file");
            }
            String text;
            try (SeekableByteChannel channel = file.openForReading()) {
                text = FileSupport.readText(channel, shown);
            }
            int count = occurrences(text, oldText);
            if (count == 0) {
                throw new ToolException("old_text was not found in '" + shown
                        + "'; it must match the file exactly, including spaces and line breaks");
            }
            if (count > 1 && !replaceAll) {
                throw new ToolException("old_text occurs " + count + " times in '" + shown
                        + "'; include more surrounding text to make it unique, or set replace_all to true");
            }
            String edited = replaceAll ? text.replace(oldText, newText) : replaceFirst(text, oldText, newText);
            file.replace(edited.getBytes(StandardCharsets.UTF_8));
            String path = context.roots().display(file.path());
            return ToolResult.of("Replaced " + count + (count == 1 ? " occurrence" : " occurrences") + " in " + path,
                    Map.of("path", path, "replacements", count));
        } catch (NoSuchFileException e) {
            throw new ToolException("file '" + shown + "' does not exist");
        } catch (IOException e) {
            throw FileSupport.failure("edit", shown, e);
        }
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + part.length())) {
            count++;
        }
        return count;
    }

    private static String replaceFirst(String text, String oldText, String newText) {
        int at = text.indexOf(oldText);
        return text.substring(0, at) + newText + text.substring(at + oldText.length());
    }
}
