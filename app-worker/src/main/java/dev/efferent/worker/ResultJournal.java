package dev.efferent.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskResult;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Keeps every result on disk until the brain acknowledges it, and marks every task while it runs, so that neither a
 * dropped link nor a worker restart loses a task. One file, {@code log}, that only grows: a line (a JSON object) when a
 * task starts running, when its result is recorded, when the brain acknowledges it and when a task is handed back;
 * what is open is also held in memory (each result as its line). The file is rewritten with only what is open when it
 * has grown well past that, and at every start. Decision 29 has why (a file per task cost the worker a quarter of its
 * CPU per task).
 * <p>
 * Appends are not forced to the disk, as the files before them were not: a killed worker loses nothing; a machine
 * that loses power may lose the last lines. A rewrite is forced before it replaces the log. A line cut short (a kill,
 * a full disk) is ignored when the journal is read again, and never has another appended to it.
 */
final class ResultJournal implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ResultJournal.class.getName());
    static final String RESTARTED = "worker restarted while running";
    /** The log is rewritten once it is past this size and four times what is open. */
    static final long COMPACT_AFTER_BYTES = 1 << 20;

    /** A recorded result as its line in the log, and when it was recorded. */
    private record Held(String line, Instant at) {
    }

    private final Path dir;
    private final Path log;
    private final ProtocolCodec codec;
    private final ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private final Set<String> running = new LinkedHashSet<>();
    private final Map<String, Held> results = new LinkedHashMap<>();
    private FileChannel channel;
    private boolean closed;
    /** Where the log's last whole line ends: its size, unless a write failed part way. */
    private long logBytes;
    /** About the size of a log of only what is open. */
    private long openBytes;
    /** The size past which the log is rewritten; moved on after a rewrite failed, so it is not tried every line. */
    private long rewriteAfter = COMPACT_AFTER_BYTES;

    ResultJournal(Path dir, ProtocolCodec codec) {
        this.dir = dir;
        this.log = dir.resolve("log");
        this.codec = codec;
        try {
            Files.createDirectories(dir);
            // Left by a stop in the middle of a rewrite: the log itself is whole.
            Files.deleteIfExists(dir.resolve("log.tmp"));
            if (Files.exists(log)) {
                replay();
            }
            importFileJournal();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the result journal in " + dir + ": " + e.getMessage(), e);
        }
        try {
            rewrite();
        } catch (IOException e) {
            // A full disk, say: the worker still starts and delivers what it holds; the log goes on from its last
            // whole line.
            LOG.log(Level.WARNING, "Could not rewrite the result journal " + log + " (" + e.getMessage() + "); "
                    + "appending to it as it is", e);
            openForAppend();
        }
    }

    /** After a restart: every task that was running when the worker stopped is recorded as failed. */
    synchronized int recoverAfterRestart() {
        List<String> stopped = List.copyOf(running);
        for (String taskId : stopped) {
            record(TaskResult.ended(taskId, ResultStatus.FAILED, RESTARTED, 0));
            LOG.log(Level.WARNING, "Task {0} was running when the worker stopped; reporting it as failed", taskId);
        }
        return stopped.size();
    }

    synchronized void markRunning(String taskId) {
        if (running.add(taskId)) {
            openBytes += runningLineSize(taskId);
            append(entry("running", taskId));
        }
    }

    /** Stores the result, then clears the task's running mark. */
    synchronized void record(TaskResult result) {
        Instant at = Instant.now();
        String line = "{\"at\":" + at.toEpochMilli() + ",\"result\":" + codec.encode(result) + "}\n";
        // Held in memory first: if the disk refuses the line, the result is still offered until acknowledged.
        clearRunning(result.taskId());
        putResult(result.taskId(), new Held(line, at));
        append(line);
    }

    /** Forgets a task that ended without a result (handed back): no running mark, no result. */
    synchronized void forget(String taskId) {
        if (running.contains(taskId) || results.containsKey(taskId)) {
            clearRunning(taskId);
            removeResult(taskId);
            append(entry("forget", taskId));
        }
    }

    /** The brain has stored the result: forget it. */
    synchronized void acknowledge(String taskId) {
        if (results.containsKey(taskId)) {
            removeResult(taskId);
            append(entry("ack", taskId));
        }
    }

    /** Results not yet acknowledged, to send after (re)connecting. */
    synchronized List<TaskResult> pending() {
        return results.values().stream().map(this::result).toList();
    }

    /** The result of {@code taskId} if it ran here and the brain has not acknowledged it. */
    synchronized Optional<TaskResult> pending(String taskId) {
        return Optional.ofNullable(results.get(taskId)).map(this::result);
    }

    /** Results not acknowledged although recorded at least {@code age} ago: the brain may have failed to store them. */
    synchronized List<TaskResult> pending(Duration age) {
        Instant before = Instant.now().minus(age);
        return results.values().stream().filter(h -> !h.at().isAfter(before)).map(this::result).toList();
    }

    /** Closes the log; a line written after this (a task that ended while the worker stopped) opens it for itself. */
    @Override
    public synchronized void close() {
        closed = true;
        closeChannel();
    }

    private TaskResult result(Held held) {
        try {
            return (TaskResult) codec.decode(json.readTree(held.line()).get("result").toString());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a result line this journal wrote does not read back", e);
        }
    }

    private void clearRunning(String taskId) {
        if (running.remove(taskId)) {
            openBytes -= runningLineSize(taskId);
        }
    }

    private void putResult(String taskId, Held held) {
        removeResult(taskId);
        results.put(taskId, held);
        openBytes += held.line().length();
    }

    private void removeResult(String taskId) {
        Held gone = results.remove(taskId);
        if (gone != null) {
            openBytes -= gone.line().length();
        }
    }

    /** About the length of a task's running line, without writing it again: {@code {"running":"<id>"}} and a newline. */
    private static int runningLineSize(String taskId) {
        return taskId.length() + 15;
    }

    private String entry(String kind, String taskId) {
        try {
            // The id as a JSON string: whatever it holds, it cannot end the line or add a field.
            return "{\"" + kind + "\":" + json.writeValueAsString(taskId) + "}\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a task id as JSON", e);
        }
    }

    /** Appends one line; if the write fails, the log is cut back to its last whole line before the error goes on. */
    private void append(String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        try {
            if (channel == null) {
                openForAppend();
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            try {
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            } catch (IOException e) {
                try {
                    channel.truncate(logBytes);
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the result journal " + log + ": " + e.getMessage(), e);
        } finally {
            if (closed) {
                closeChannel();
            }
        }
        logBytes += bytes.length;
        if (logBytes > rewriteAfter && logBytes > 4 * openBytes) {
            try {
                rewrite();
                rewriteAfter = COMPACT_AFTER_BYTES;
            } catch (IOException e) {
                // The log as it is stays whole and correct; it is tried again once it has grown by as much again.
                rewriteAfter = logBytes + COMPACT_AFTER_BYTES;
                LOG.log(Level.WARNING, "Could not rewrite the result journal " + log + "; it goes on growing", e);
            }
        }
    }

    /** Opens the log to append to it, cut back to its last whole line (a cut line gets nothing appended to it). */
    private void openForAppend() {
        try {
            channel = FileChannel.open(log, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), ownerOnly());
            if (channel.size() > logBytes) {
                channel.truncate(logBytes);
            }
            logBytes = channel.size();
            channel.position(logBytes);
        } catch (IOException e) {
            closeChannel();
            throw new UncheckedIOException("cannot open the result journal " + log + ": " + e.getMessage(), e);
        }
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "Closing the result journal failed", e);
            }
            channel = null;
        }
    }

    /** Writes what is open to a new log, forced to the disk, then puts it in the old one's place. */
    private void rewrite() throws IOException {
        StringBuilder text = new StringBuilder();
        running.forEach(id -> text.append(entry("running", id)));
        results.values().forEach(h -> text.append(h.line()));
        byte[] content = text.toString().getBytes(StandardCharsets.UTF_8);
        Path temp = dir.resolve("log.tmp");
        Files.deleteIfExists(temp);
        try (FileChannel out = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                ownerOnly())) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            // It holds every open result at once: it must not be an empty file after a power cut.
            out.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        closeChannel();
        StateFiles.move(temp, log);
        logBytes = content.length;
        openBytes = text.length();
        if (!closed) {
            openForAppend();
        }
    }

    /** Results hold what commands printed: the log is its owner's alone, where the file system says who that is. */
    private static FileAttribute<?>[] ownerOnly() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
    }

    /**
     * Reads the log into memory: line by line as bytes, so a line cut in the middle of a character is only that line;
     * a cut last line ends it, a line that is not an entry is left out.
     */
    private void replay() throws IOException {
        byte[] bytes = Files.readAllBytes(log);
        var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        int broken = 0;
        int from = 0;
        for (int end = indexOf(bytes, from); end >= 0; from = end + 1, end = indexOf(bytes, from)) {
            String line;
            try {
                line = decoder.decode(ByteBuffer.wrap(bytes, from, end - from)).toString();
            } catch (CharacterCodingException e) {
                broken++;
                continue;
            }
            if (!apply(line)) {
                broken++;
            }
        }
        // What follows the last whole line is cut off when the log is next opened to append.
        logBytes = from;
        if (from < bytes.length) {
            LOG.log(Level.INFO, "The result journal''s last line was cut short (the worker was stopped while writing "
                    + "it); it is left out");
        }
        if (broken > 0) {
            Path aside = dir.resolve("log.broken-" + System.currentTimeMillis());
            Files.copy(log, aside);
            LOG.log(Level.WARNING, "{0} lines of the result journal {1} are unreadable and left out; the journal as it "
                    + "was is kept in {2}", broken, log, aside);
        }
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private boolean apply(String line) {
        JsonNode entry;
        try {
            entry = json.readTree(line);
        } catch (JsonProcessingException e) {
            return false;
        }
        if (entry == null || !entry.isObject()) {
            return false;
        }
        if (entry.path("running").isTextual()) {
            String id = entry.get("running").asText();
            if (running.add(id)) {
                openBytes += runningLineSize(id);
            }
        } else if (entry.path("ack").isTextual()) {
            removeResult(entry.get("ack").asText());
        } else if (entry.path("forget").isTextual()) {
            clearRunning(entry.get("forget").asText());
            removeResult(entry.get("forget").asText());
        } else if (entry.path("result").isObject() && entry.path("at").canConvertToLong()) {
            try {
                if (!(codec.decode(entry.get("result").toString()) instanceof TaskResult r)) {
                    return false;
                }
                clearRunning(r.taskId());
                putResult(r.taskId(), new Held(line + "\n", Instant.ofEpochMilli(entry.get("at").asLong())));
            } catch (ProtocolException e) {
                return false;
            }
        } else {
            return false;
        }
        return true;
    }

    /**
     * Takes over the journal of earlier versions, a file per task ({@code running/<id>}, {@code results/<id>.json}),
     * so that an upgrade loses no result; an unreadable file is left where it is. The files go only once the log
     * holds what they held.
     */
    private void importFileJournal() throws IOException {
        Path oldRunning = dir.resolve("running");
        Path oldResults = dir.resolve("results");
        List<Path> imported = new ArrayList<>();
        for (Path marker : list(oldRunning)) {
            String id = marker.getFileName().toString();
            if (running.add(id)) {
                openBytes += runningLineSize(id);
            }
            imported.add(marker);
        }
        for (Path file : list(oldResults)) {
            if (!file.toString().endsWith(".json")) {
                continue;
            }
            try {
                if (codec.decode(Files.readString(file)) instanceof TaskResult r) {
                    Instant at = Files.getLastModifiedTime(file).toInstant();
                    clearRunning(r.taskId());
                    putResult(r.taskId(), new Held("{\"at\":" + at.toEpochMilli() + ",\"result\":" + codec.encode(r)
                            + "}\n", at));
                    imported.add(file);
                }
            } catch (IOException | ProtocolException e) {
                LOG.log(Level.WARNING, "Journal file {0} of an earlier version is unreadable; left where it is: {1}",
                        file, e.getMessage());
            }
        }
        if (imported.isEmpty()) {
            return;
        }
        try {
            rewrite();
        } catch (IOException e) {
            // Taken over next time; meanwhile they are held in memory, and the old files stay.
            LOG.log(Level.WARNING, "Could not take over the result journal of an earlier version in " + dir + " ("
                    + e.getMessage() + "); trying again at the next start", e);
            return;
        }
        for (Path file : imported) {
            Files.deleteIfExists(file);
        }
        for (Path old : List.of(oldRunning, oldResults)) {
            try {
                Files.deleteIfExists(old);
            } catch (DirectoryNotEmptyException e) {
                // An unreadable file stays, and its directory with it.
            }
        }
        LOG.log(Level.INFO, "Took over {0} entries of the result journal of an earlier version", imported.size());
    }

    private static List<Path> list(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
                stream.forEach(files::add);
            }
        }
        return files;
    }
}
