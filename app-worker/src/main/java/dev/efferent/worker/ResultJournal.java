package dev.efferent.worker;

import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskResult;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Keeps every result on disk until the brain acknowledges it, and marks every task while it runs, so that
 * neither a dropped link nor a worker restart loses a task: {@code running/<taskId>} while a task runs,
 * {@code results/<taskId>.json} (the {@code task:result} frame) until {@code task:result:ack}.
 */
final class ResultJournal {
    private static final System.Logger LOG = System.getLogger(ResultJournal.class.getName());
    static final String RESTARTED = "worker restarted while running";

    private final Path running;
    private final Path results;
    private final ProtocolCodec codec;

    ResultJournal(Path dir, ProtocolCodec codec) {
        this.running = dir.resolve("running");
        this.results = dir.resolve("results");
        this.codec = codec;
        try {
            Files.createDirectories(running);
            Files.createDirectories(results);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the result journal in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** After a restart: every task that was running when the worker stopped is recorded as failed. */
    int recoverAfterRestart() {
        int recovered = 0;
        for (Path marker : list(running)) {
            String taskId = marker.getFileName().toString();
            record(TaskResult.ended(taskId, ResultStatus.FAILED, RESTARTED, 0));
            LOG.log(Level.WARNING, "Task {0} was running when the worker stopped; reporting it as failed", taskId);
            recovered++;
        }
        return recovered;
    }

    void markRunning(String taskId) {
        write(running.resolve(safe(taskId)), "");
    }

    /** Stores the result, then clears the task's running mark. */
    void record(TaskResult result) {
        write(results.resolve(safe(result.taskId()) + ".json"), codec.encode(result));
        delete(running.resolve(safe(result.taskId())));
    }

    /** Forgets a task that ended without a result (handed back): no running mark, no result. */
    void forget(String taskId) {
        delete(running.resolve(safe(taskId)));
        delete(results.resolve(safe(taskId) + ".json"));
    }

    /** The brain has stored the result: forget it. */
    void acknowledge(String taskId) {
        delete(results.resolve(safe(taskId) + ".json"));
    }

    /** Results not yet acknowledged, to send after (re)connecting. */
    List<TaskResult> pending() {
        return pending(Duration.ZERO);
    }

    /** The result of {@code taskId} if it ran here and the brain has not acknowledged it: one file read, not all. */
    Optional<TaskResult> pending(String taskId) {
        Path file = results.resolve(safe(taskId) + ".json");
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return codec.decode(Files.readString(file)) instanceof TaskResult r && r.taskId().equals(taskId)
                    ? Optional.of(r) : Optional.empty();
        } catch (NoSuchFileException e) {
            // Acknowledged meanwhile.
            return Optional.empty();
        } catch (IOException | ProtocolException e) {
            LOG.log(Level.WARNING, "Journal file " + file + " is unreadable; moving it aside", e);
            move(file, file.resolveSibling(file.getFileName() + ".broken"));
            return Optional.empty();
        }
    }

    /** Results not acknowledged although recorded at least {@code age} ago: the brain may have failed to store them. */
    List<TaskResult> pending(Duration age) {
        List<TaskResult> pending = new ArrayList<>();
        Instant before = Instant.now().minus(age);
        for (Path file : list(results)) {
            if (!file.toString().endsWith(".json") || !recordedBefore(file, before)) {
                continue;
            }
            try {
                Message m = codec.decode(Files.readString(file));
                if (m instanceof TaskResult r) {
                    pending.add(r);
                }
            } catch (IOException | ProtocolException e) {
                LOG.log(Level.WARNING, "Journal file " + file + " is unreadable; moving it aside", e);
                move(file, file.resolveSibling(file.getFileName() + ".broken"));
            }
        }
        return pending;
    }

    private static boolean recordedBefore(Path file, Instant instant) {
        try {
            return !Files.getLastModifiedTime(file).toInstant().isAfter(instant);
        } catch (IOException e) {
            return false;
        }
    }

    private static String safe(String taskId) {
        // Task ids come from the brain; never let one name a path elsewhere.
        return taskId.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static List<Path> list(Path dir) {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the result journal " + dir + ": " + e.getMessage(), e);
        }
        return files;
    }

    private static void write(Path file, String content) {
        try {
            StateFiles.write(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the result journal file " + file + ": " + e.getMessage(), e);
        }
    }

    private static void move(Path from, Path to) {
        try {
            StateFiles.move(from, to);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move " + from + " to " + to + ": " + e.getMessage(), e);
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the result journal file " + file + ": " + e.getMessage(), e);
        }
    }
}
