package dev.efferent.tools.fs;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.Map;

/** read_file: a text file's lines, from an offset, up to a limit and a size cap. */
final class ReadFileTool implements Tool {
    private static final ToolSpec SPEC = ToolSpec.local("read_file",
            "Read a UTF-8 text file. Returns its lines from 'offset' (1-based, default 1), at most 'limit' lines, "
                    + "cut at the size cap with a marker that says where to go on.",
            """
            {"type": "object",
             "properties": {
               "path": {"type": "string", "minLength": 1, "description": "File path, relative to the first root or absolute inside a root"},
               "offset": {"type": "integer", "minimum": 1, "description": "First line to return, from 1"},
               "limit": {"type": "integer", "minimum": 1, "description": "Most lines to return"}
             },
             "required": ["path"],
             "additionalProperties": false}
            """, ToolHints.READ_ONLY);

    private final FsLimits limits;

    ReadFileTool(FsLimits limits) {
        this.limits = limits;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(ToolParams params, ToolContext context) {
        String shown = params.string("path");
        long offset = params.integer("offset", 1);
        long limit = params.integer("limit", Long.MAX_VALUE);
        try (ConfinedPath file = ConfinedPath.open(context.roots(), shown, limits)) {
            BasicFileAttributes attrs = file.attributes()
                    .orElseThrow(() -> new ToolException("file '" + shown + "' does not exist"));
            if (attrs.isDirectory()) {
                throw new ToolException("'" + shown + "' is a directory; use list_dir to see what it holds");
            }
            try (SeekableByteChannel channel = file.openForReading()) {
                if (FileSupport.looksBinary(channel)) {
                    throw FileSupport.binary(shown);
                }
                return read(channel, file.path(), shown, offset, limit, context);
            }
        } catch (NoSuchFileException e) {
            throw new ToolException("file '" + shown + "' does not exist");
        } catch (IOException e) {
            throw FileSupport.failure("read", shown, e);
        }
    }

    private ToolResult read(SeekableByteChannel channel, Path file, String shown, long offset, long limit,
                            ToolContext context) throws IOException {
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        StringBuilder out = new StringBuilder();
        long bytes = 0;
        long lineNo = 0;
        long returned = 0;
        boolean truncated = false;
        boolean more = false;
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(Channels.newInputStream(channel), decoder))) {
            String line;
            while ((line = reader.readLine()) != null) {
                lineNo++;
                if (lineNo < offset) {
                    continue;
                }
                if (returned >= limit) {
                    more = true;
                    break;
                }
                long lineBytes = line.getBytes(StandardCharsets.UTF_8).length + 1L;
                if (bytes + lineBytes > limits.maxReadBytes()) {
                    truncated = true;
                    break;
                }
                if (returned % 1000 == 0) {
                    context.checkCancelled();
                }
                out.append(line).append('\n');
                bytes += lineBytes;
                returned++;
            }
        } catch (CharacterCodingException e) {
            throw new ToolException("file '" + shown + "' is not UTF-8 text (line " + (lineNo + 1)
                    + "); read_file reads text files only");
        }
        if (offset > lineNo && lineNo > 0 && returned == 0 && !truncated) {
            throw new ToolException("offset " + offset + " is past the end of '" + shown + "', which has " + lineNo
                    + " lines");
        }
        long lastLine = offset + returned - 1;
        if (truncated) {
            out.append("[… truncated at ").append(limits.maxReadBytes()).append(" bytes; lines ").append(offset)
                    .append("-").append(lastLine).append(" shown. Read on with offset=").append(lastLine + 1)
                    .append("]\n");
        }
        Map<String, Object> structured = new LinkedHashMap<>();
        structured.put("path", context.roots().display(file));
        structured.put("startLine", offset);
        structured.put("endLine", lastLine);
        structured.put("truncated", truncated);
        structured.put("moreLines", truncated || more);
        return ToolResult.of(out.toString(), structured);
    }
}
