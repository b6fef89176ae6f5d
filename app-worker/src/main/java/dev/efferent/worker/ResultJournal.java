package dev.efferent.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
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
import java.nio.charset.StandardCharsets;
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
 * the state is also held in memory. The file is rewritten with only what is still open when it has grown well past
 * that, and at every start. Decision 29 has why (a file per task cost the worker a fifth of its CPU per task).
 * <p>
 * Appends are not forced to the disk, as the files before them were not: a killed worker loses nothing; a machine
 * that loses power may lose the last lines. A line cut short by a kill is ignored when the journal is read again.
 */
final class ResultJournal implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ResultJournal.class.getName());
    static final String RESTARTED = "worker restarted while running";
    /** The log is rewritten once it is past this size and four times what is still open. */
    static final long COMPACT_AFTER_BYTES = 1 << 20;

    /** A recorded result, its line in the log, and when it was recorded. */
    private record Held(TaskResult result, String line, Instant at) {
    }

    private final Path dir;
    private final Path log;
    private final ProtocolCodec codec;
    private final ObjectMapper json = new ObjectMapper();
    private final Set<String> running = new LinkedHashSet<>();
    private final Map<String, Held> results = new LinkedHashMap<>();
    private FileChannel channel;
    private long logBytes;
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
            rewrite();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the result journal in " + dir + ": " + e.getMessage(), e);
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
            append(entry("running", taskId));
        }
    }

    /** Stores the result, then clears the task's running mark. */
    synchronized void record(TaskResult result) {
        Instant at = Instant.now();
        String line = "{\"at\":" + at.toEpochMilli() + ",\"result\":" + codec.encode(result) + "}\n";
        running.remove(result.taskId());
        results.put(result.taskId(), new Held(result, line, at));
        append(line);
    }

    /** Forgets a task that ended without a result (handed back): no running mark, no result. */
    synchronized void forget(String taskId) {
        boolean known = running.remove(taskId);
        if (results.remove(taskId) != null || known) {
            append(entry("forget", taskId));
        }
    }

    /** The brain has stored the result: forget it. */
    synchronized void acknowledge(String taskId) {
        if (results.remove(taskId) != null) {
            append(entry("ack", taskId));
        }
    }

    /** Results not yet acknowledged, to send after (re)connecting. */
    synchronized List<TaskResult> pending() {
        return results.values().stream().map(Held::result).toList();
    }

    /** The result of {@code taskId} if it ran here and the brain has not acknowledged it. */
    synchronized Optional<TaskResult> pending(String taskId) {
        return Optional.ofNullable(results.get(taskId)).map(Held::result);
    }

    /** Results not acknowledged although recorded at least {@code age} ago: the brain may have failed to store them. */
    synchronized List<TaskResult> pending(Duration age) {
        Instant before = Instant.now().minus(age);
        return results.values().stream().filter(h -> !h.at().isAfter(before)).map(Held::result).toList();
    }

    @Override
    public synchronized void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "Closing the result journal failed", e);
            }
            channel = null;
        }
    }

    private String entry(String kind, String taskId) {
        try {
            // The id as a JSON string: whatever it holds, it cannot end the line or add a field.
            return "{\"" + kind + "\":" + json.writeValueAsString(taskId) + "}\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a task id as JSON", e);
        }
    }

    private void append(String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        try {
            if (channel == null) {
                // Written after close (a task that ended while the worker stopped): kept for the next start.
                channel = FileChannel.open(log, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND), ownerOnly());
            }
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the result journal " + log + ": " + e.getMessage(), e);
        }
        logBytes += bytes.length;
        if (logBytes > rewriteAfter && logBytes > 4 * openBytes()) {
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

    /** About the size of a log of what is still open (characters, not bytes: close enough to decide by). */
    private long openBytes() {
        long bytes = 0;
        for (String id : running) {
            bytes += entry("running", id).length();
        }
        for (Held h : results.values()) {
            bytes += h.line().length();
        }
        return bytes;
    }

    /** Writes what is still open to a new log, then puts it in the old one's place. */
    private void rewrite() throws IOException {
        StringBuilder text = new StringBuilder();
        running.forEach(id -> text.append(entry("running", id)));
        results.values().forEach(h -> text.append(h.line()));
        close();
        byte[] content = text.toString().getBytes(StandardCharsets.UTF_8);
        Path temp = dir.resolve("log.tmp");
        Files.deleteIfExists(temp);
        try (FileChannel out = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                ownerOnly())) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
        }
        StateFiles.move(temp, log);
        logBytes = content.length;
        channel = FileChannel.open(log, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /** Results hold what commands printed: the log is its owner's alone, where the file system says who that is. */
    private static FileAttribute<?>[] ownerOnly() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
    }

    /** Reads the log into memory; a line cut short by a kill ends it, a line that is not an entry is skipped. */
    private void replay() throws IOException {
        String text = Files.readString(log, StandardCharsets.UTF_8);
        int broken = 0;
        int from = 0;
        for (int end = text.indexOf('\n'); end >= 0; from = end + 1, end = text.indexOf('\n', from)) {
            if (!apply(text.substring(from, end))) {
                broken++;
            }
        }
        if (from < text.length()) {
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
            running.add(entry.get("running").asText());
        } else if (entry.path("ack").isTextual()) {
            results.remove(entry.get("ack").asText());
        } else if (entry.path("forget").isTextual()) {
            running.remove(entry.get("forget").asText());
            results.remove(entry.get("forget").asText());
        } else if (entry.path("result").isObject() && entry.path("at").canConvertToLong()) {
            try {
                if (!(codec.decode(entry.get("result").toString()) instanceof TaskResult r)) {
                    return false;
                }
                running.remove(r.taskId());
                results.put(r.taskId(), new Held(r, line + "\n", Instant.ofEpochMilli(entry.get("at").asLong())));
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
     * so that an upgrade loses no result; an unreadable file is left where it is.
     */
    private void importFileJournal() throws IOException {
        Path oldRunning = dir.resolve("running");
        Path oldResults = dir.resolve("results");
        for (Path marker : list(oldRunning)) {
            if (!marker.getFileName().toString().endsWith(".tmp")) {
                running.add(marker.getFileName().toString());
            }
        }
        List<Path> imported = new ArrayList<>(list(oldRunning));
        for (Path file : list(oldResults)) {
            if (!file.toString().endsWith(".json")) {
                continue;
            }
            try {
                if (codec.decode(Files.readString(file)) instanceof TaskResult r) {
                    running.remove(r.taskId());
                    Instant at = Files.getLastModifiedTime(file).toInstant();
                    results.put(r.taskId(), new Held(r, "{\"at\":" + at.toEpochMilli() + ",\"result\":"
                            + codec.encode(r) + "}\n", at));
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
        // Written to the new log before the old files go.
        rewrite();
        for (Path file : imported) {
            Files.deleteIfExists(file);
        }
        for (Path old : List.of(oldRunning, oldResults)) {
            try {
                Files.deleteIfExists(old);
            } catch (java.nio.file.DirectoryNotEmptyException e) {
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
