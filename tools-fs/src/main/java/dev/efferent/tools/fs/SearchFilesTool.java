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
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.NoSuchFileException;
import java.nio.file.PathMatcher;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * search_files: a regular expression over the text files under a path, reported as {@code file:line: text}. The
 * expression runs with a step budget per line and stops on cancellation ({@link BoundedMatcher}).
 */
final class SearchFilesTool implements Tool {
    private static final int MAX_LINE_CHARS = 300;
    /**
     * After this many lines of one file exceeded their budget, the rest of that file is given up: a pattern that
     * is too slow on ten lines is likely too slow on the others, and a large file of them would use the whole
     * deadline a few milliseconds at a time, ending the call with nothing to show.
     */
    private static final int MAX_SLOW_LINES_PER_FILE = 10;
    private static final ToolSpec SPEC = ToolSpec.local("search_files",
            "Search text files under 'path' (default the first root) for a Java regular expression. Returns "
                    + "'file:line: text' for each matching line, at most 'max_matches' (default 100). Binary files, "
                    + "very large files, pipes, sockets, devices and .git directories are skipped; symbolic links are "
                    + "not followed. A line on which the pattern takes too long is skipped and counted.",
            """
            {"type": "object",
             "properties": {
               "pattern": {"type": "string", "minLength": 1, "description": "Java regular expression"},
               "path": {"type": "string", "default": ".", "description": "Directory or file inside a root"},
               "glob": {"type": "string", "description": "Only files whose name matches, e.g. *.java"},
               "ignore_case": {"type": "boolean", "default": false},
               "max_matches": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}
             },
             "required": ["pattern"],
             "additionalProperties": false}
            """, ToolHints.READ_ONLY);

    private final FsLimits limits;

    SearchFilesTool(FsLimits limits) {
        this.limits = limits;
    }

    @Override
    public ToolSpec spec() {
        return SPEC;
    }

    @Override
    public ToolResult call(ToolParams params, ToolContext context) {
        String regex = params.string("pattern");
        Pattern pattern;
        try {
            pattern = Pattern.compile(regex, params.bool("ignore_case", false)
                    ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw new ToolException("pattern '" + regex + "' is not a valid regular expression: "
                    + e.getDescription() + " near index " + e.getIndex());
        }
        Optional<PathMatcher> glob = params.optionalString("glob")
                .map(g -> FileSystems.getDefault().getPathMatcher("glob:" + g));
        int max = (int) Math.min(params.integer("max_matches", 100), limits.maxSearchMatches());
        String shown = params.string("path", ".");
        Search search = new Search(new BoundedMatcher(pattern, limits.maxRegexSteps(), context), glob, max, context);
        try (ConfinedPath start = ConfinedPath.open(context.roots(), shown, limits)) {
            BasicFileAttributes attrs = start.attributes()
                    .orElseThrow(() -> new ToolException("path '" + shown + "' does not exist"));
            search.visit(start, attrs, 0);
        } catch (NoSuchFileException e) {
            throw new ToolException("path '" + shown + "' does not exist");
        } catch (IOException e) {
            throw FileSupport.failure("search", shown, e);
        }
        StringBuilder out = new StringBuilder();
        search.lines.forEach(l -> out.append(l).append('\n'));
        if (search.lines.isEmpty()) {
            out.append("No matches for /").append(regex).append("/ in ").append(search.filesSearched).append(" files\n");
        } else if (search.truncated) {
            out.append("[… stopped at ").append(max).append(" matches; narrow the pattern, path or glob]\n");
        }
        if (search.hardLinked > 0) {
            out.append("[").append(search.hardLinked).append(" hard-linked files skipped: their content may belong to ")
                    .append("files outside the allowed roots; set tools.fs.allow-hardlinks: true to search them]\n");
        }
        if (search.slowLines > 0) {
            out.append("[").append(search.slowLines).append(search.slowLines == 1 ? " line" : " lines")
                    .append(" skipped (first: ").append(search.firstSlowLine).append("): the pattern took too long on ")
                    .append(search.slowLines == 1 ? "it" : "them").append("; simplify the pattern, e.g. avoid ")
                    .append("nested or repeated '.*']\n");
        }
        if (search.slowFiles > 0) {
            out.append("[").append(search.slowFiles).append(" files given up after ").append(MAX_SLOW_LINES_PER_FILE)
                    .append(" such lines each; their remaining lines were not searched]\n");
        }
        if (search.special > 0) {
            out.append("[").append(search.special).append(" pipes, sockets or devices skipped: the file tools read ")
                    .append("regular files only]\n");
        }
        if (search.unreadable > 0) {
            out.append("[").append(search.unreadable).append(" files or directories could not be read and were ")
                    .append("skipped]\n");
        }
        Map<String, Object> structured = new LinkedHashMap<>();
        structured.put("matches", search.matches);
        structured.put("filesSearched", search.filesSearched);
        structured.put("truncated", search.truncated);
        structured.put("hardLinksSkipped", search.hardLinked);
        structured.put("unreadableSkipped", search.unreadable);
        structured.put("slowLinesSkipped", search.slowLines);
        structured.put("slowFilesGivenUp", search.slowFiles);
        structured.put("specialSkipped", search.special);
        return ToolResult.of(out.toString(), structured);
    }

    /** One search's walk and its findings. Links are never followed: the walk goes through directory handles. */
    private final class Search {
        private final BoundedMatcher matcher;
        private final Optional<PathMatcher> glob;
        private final int max;
        private final ToolContext context;
        private final List<String> lines = new ArrayList<>();
        private final List<Map<String, Object>> matches = new ArrayList<>();
        private int filesSearched;
        private int hardLinked;
        /** Directories deeper than this below the start are not searched. */
        static final int MAX_DEPTH = 64;
        private int unreadable;
        private int special;
        private int slowLines;
        private String firstSlowLine = "";
        private int slowFiles;
        private boolean truncated;

        Search(BoundedMatcher matcher, Optional<PathMatcher> glob, int max, ToolContext context) {
            this.matcher = matcher;
            this.glob = glob;
            this.max = max;
            this.context = context;
        }

        /** Searches {@code entry}, a file or a directory tree; false once the match cap ends the search. */
        boolean visit(ConfinedPath entry, BasicFileAttributes attrs, int depth) throws IOException {
            if (attrs.isRegularFile()) {
                return searchFile(entry, attrs);
            }
            if (attrs.isOther()) {
                // Never opened: a FIFO would block the open until a writer came, a device might never end.
                if (globMatches(entry)) {
                    special++;
                }
                return true;
            }
            if (!attrs.isDirectory() || ".git".equals(String.valueOf(entry.path().getFileName()))) {
                return true;
            }
            context.checkCancelled();
            if (depth >= MAX_DEPTH) {
                // Each level holds an open directory and a stack frame: a tree made deep on purpose (a command can
                // make one in a second) would otherwise exhaust either. Counted with what could not be read.
                unreadable++;
                return true;
            }
            try (ConfinedPath dir = entry.openDirectory()) {
                List<String> names = dir.names();
                names.sort(null);
                for (String name : names) {
                    ConfinedPath child = dir.child(name);
                    if (context.roots().isHidden(child.path())) {
                        // Credentials (tools.shell.hide): never searched.
                        continue;
                    }
                    Optional<BasicFileAttributes> childAttrs = child.attributes();
                    if (childAttrs.isPresent() && !visitChild(child, childAttrs.get(), depth + 1)) {
                        return false;
                    }
                }
            }
            return true;
        }

        private boolean visitChild(ConfinedPath child, BasicFileAttributes attrs, int depth) {
            try {
                return visit(child, attrs, depth);
            } catch (IOException e) {
                // An unreadable file or directory (permissions, a vanished file) should not end the search of
                // everything else; it is counted and reported.
                unreadable++;
                return true;
            }
        }

        private boolean searchFile(ConfinedPath file, BasicFileAttributes attrs) throws IOException {
            if (attrs.size() > limits.maxSearchFileBytes() || !globMatches(file)) {
                return true;
            }
            if (file.refusesHardLink(attrs)) {
                hardLinked++;
                return true;
            }
            try (SeekableByteChannel channel = file.openForReading()) {
                if (FileSupport.looksBinary(channel)) {
                    return true;
                }
                filesSearched++;
                return searchLines(channel, context.roots().display(file.path()));
            }
        }

        private boolean globMatches(ConfinedPath file) {
            return glob.map(g -> g.matches(file.path().getFileName())).orElse(true);
        }

        private boolean searchLines(SeekableByteChannel channel, String shown) throws IOException {
            var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE);
            // Not closed here: it holds nothing but the channel, which the caller closes.
            BufferedReader reader = new BufferedReader(
                    new InputStreamReader(Channels.newInputStream(channel), decoder));
            String line;
            int lineNo = 0;
            int slowHere = 0;
            while ((line = reader.readLine()) != null) {
                lineNo++;
                BoundedMatcher.Outcome outcome = matcher.find(line);
                if (outcome == BoundedMatcher.Outcome.TOO_SLOW) {
                    if (slowLines++ == 0) {
                        firstSlowLine = shown + ":" + lineNo;
                    }
                    if (++slowHere >= MAX_SLOW_LINES_PER_FILE) {
                        slowFiles++;
                        return true;
                    }
                } else if (outcome == BoundedMatcher.Outcome.MATCH) {
                    if (matches.size() >= max) {
                        truncated = true;
                        return false;
                    }
                    String text = line.length() > MAX_LINE_CHARS ? line.substring(0, MAX_LINE_CHARS) + "…" : line;
                    lines.add(shown + ":" + lineNo + ": " + text);
                    matches.add(Map.of("file", shown, "line", lineNo, "text", text));
                }
            }
            return true;
        }
    }
}
