package dev.efferent.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskResult;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResultJournalTest {
    @TempDir
    Path dir;

    @Test
    void keepsResultsUntilAcknowledged() throws Exception {
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        journal.markRunning("t1");
        ObjectNode callToolResult = new ObjectMapper().createObjectNode().put("isError", false);
        callToolResult.putArray("content").addObject().put("type", "text").put("text", "done");
        TaskResult result = TaskResult.completed("t1", callToolResult, 5);
        journal.record(result);
        assertEquals(List.of(result), journal.pending());
        journal.close();
        ResultJournal again = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(List.of(result), again.pending(), "survives a restart");
        again.acknowledge("t1");
        assertEquals(List.of(), again.pending());
        again.close();
        ResultJournal third = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(List.of(), third.pending(), "the acknowledgement too");
        third.close();
        if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            assertEquals("rw-------", PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(dir.resolve("log"))), "results hold commands' output: the owner's only");
        }
    }

    @Test
    void tasksRunningWhenTheWorkerStoppedAreReportedAsFailed() {
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        journal.markRunning("t7");
        journal.close();
        ResultJournal afterRestart = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(1, afterRestart.recoverAfterRestart());
        assertEquals(List.of(TaskResult.ended("t7", ResultStatus.FAILED, "worker restarted while running", 0)),
                afterRestart.pending());
        assertEquals(0, afterRestart.recoverAfterRestart(), "reported once");
        afterRestart.close();
    }

    @Test
    void aTaskIdCannotNameAFileOrWriteAnEntryOfItsOwn() throws Exception {
        String hostile = "../../escape\"}\n{\"ack\":\"t1\"}\n";
        ResultJournal journal = new ResultJournal(dir.resolve("journal"), new ProtocolCodec());
        journal.record(TaskResult.ended("t1", ResultStatus.FAILED, "no", 1));
        journal.markRunning(hostile);
        journal.close();
        ResultJournal afterRestart = new ResultJournal(dir.resolve("journal"), new ProtocolCodec());
        assertEquals(1, afterRestart.recoverAfterRestart(), "the id came back as it was, as one task");
        assertEquals(List.of("t1", hostile), afterRestart.pending().stream().map(TaskResult::taskId).toList(),
                "t1 was not acknowledged by the id's text");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("journal")), files.toList(), "nothing was written outside the journal");
        }
        afterRestart.close();
    }

    @Test
    void findsTheResultOfOneTask() {
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        TaskResult mine = TaskResult.ended("t1", ResultStatus.FAILED, "no", 1);
        journal.record(mine);
        journal.record(TaskResult.ended("t2", ResultStatus.FAILED, "no", 1));
        journal.record(TaskResult.ended("a/b", ResultStatus.FAILED, "no", 1));
        assertEquals(Optional.of(mine), journal.pending("t1"));
        assertEquals(Optional.empty(), journal.pending("t3"), "never ran here");
        assertEquals(Optional.empty(), journal.pending("a_b"), "only the id itself");
        journal.acknowledge("t1");
        assertEquals(Optional.empty(), journal.pending("t1"), "acknowledged");
        journal.close();
    }

    @Test
    void aLineCutShortByAKillIsLeftOutAndAnUnreadableOneKeptAside() throws Exception {
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        journal.record(TaskResult.ended("t1", ResultStatus.FAILED, "no", 1));
        journal.close();
        Path log = dir.resolve("log");
        Files.writeString(log, "{not json}\n", StandardOpenOption.APPEND);
        journal = new ResultJournal(dir, new ProtocolCodec());
        journal.record(TaskResult.ended("t2", ResultStatus.FAILED, "no", 1));
        journal.close();
        // Killed in the middle of the next line.
        Files.writeString(log, "{\"running\":\"t3", StandardOpenOption.APPEND);

        ResultJournal afterRestart = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(0, afterRestart.recoverAfterRestart(), "the cut line is no task");
        assertEquals(List.of("t1", "t2"), afterRestart.pending().stream().map(TaskResult::taskId).toList());
        try (var files = Files.list(dir)) {
            assertTrue(files.anyMatch(f -> f.getFileName().toString().startsWith("log.broken-")),
                    "the journal with the unreadable line is kept aside");
        }
        afterRestart.acknowledge("t1");
        afterRestart.close();
        ResultJournal again = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(List.of("t2"), again.pending().stream().map(TaskResult::taskId).toList(),
                "a line appended after the cut one reads as its own");
        again.close();
    }

    @Test
    void aLineCutInTheMiddleOfACharacterIsOnlyThatLine() throws Exception {
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        journal.record(TaskResult.ended("t1", ResultStatus.FAILED, "déjà vu", 1));
        journal.record(TaskResult.ended("t2", ResultStatus.FAILED, "naïve ünïcödé", 1));
        journal.close();
        Path log = dir.resolve("log");
        byte[] bytes = Files.readAllBytes(log);
        int cut = bytes.length - 1;
        while ((bytes[cut] & 0xC0) != 0x80) {
            cut--;
        }
        // In the middle of the last line's last two-byte character, as a kill or a full disk can leave it.
        Files.write(log, Arrays.copyOf(bytes, cut));

        ResultJournal afterRestart = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(List.of("t1"), afterRestart.pending().stream().map(TaskResult::taskId).toList());
        afterRestart.record(TaskResult.ended("t3", ResultStatus.FAILED, "after", 1));
        afterRestart.close();
        ResultJournal again = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(List.of("t1", "t3"), again.pending().stream().map(TaskResult::taskId).toList());
        again.close();
    }

    @Test
    void aLineWithAnotherEntryAfterItsOwnIsNotRead() throws Exception {
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        journal.record(TaskResult.ended("t1", ResultStatus.FAILED, "no", 1));
        journal.close();
        Files.writeString(dir.resolve("log"), "{\"running\":\"x\"}{\"ack\":\"t1\"}\n",
                StandardOpenOption.APPEND);
        ResultJournal afterRestart = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(List.of("t1"), afterRestart.pending().stream().map(TaskResult::taskId).toList());
        assertEquals(0, afterRestart.recoverAfterRestart(), "neither half was taken");
        afterRestart.close();
    }

    @Test
    void theLogIsRewrittenWithWhatIsOpenOnceItHasGrown() throws Exception {
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        journal.record(TaskResult.ended("kept", ResultStatus.FAILED, "never acknowledged", 1));
        String text = "x".repeat(500);
        for (int i = 0; i < 5_000; i++) {
            journal.markRunning("t" + i);
            journal.record(TaskResult.ended("t" + i, ResultStatus.FAILED, text, 1));
            journal.acknowledge("t" + i);
        }
        journal.close();
        assertTrue(Files.size(dir.resolve("log")) < 2 * ResultJournal.COMPACT_AFTER_BYTES,
                "5,000 results of 500 bytes, a log of " + Files.size(dir.resolve("log")) + " bytes");
        ResultJournal afterRestart = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(List.of("kept"), afterRestart.pending().stream().map(TaskResult::taskId).toList());
        afterRestart.close();
    }

    @Test
    void takesOverTheFilesOfAnEarlierVersion() throws Exception {
        ProtocolCodec codec = new ProtocolCodec();
        Files.createDirectories(dir.resolve("running"));
        Files.createDirectories(dir.resolve("results"));
        Files.writeString(dir.resolve("running/t1"), "");
        Files.writeString(dir.resolve("results/t2.json"), codec.encode(TaskResult.ended("t2", ResultStatus.FAILED,
                "no", 1)));
        Files.writeString(dir.resolve("results/t9.json"), "{not json");

        ResultJournal journal = new ResultJournal(dir, codec);
        assertEquals(1, journal.recoverAfterRestart());
        assertEquals(List.of("t2", "t1"), journal.pending().stream().map(TaskResult::taskId).toList());
        assertTrue(Files.notExists(dir.resolve("running")), "taken over");
        try (var left = Files.list(dir.resolve("results"))) {
            assertEquals(List.of(dir.resolve("results/t9.json")), left.toList(), "an unreadable file is left where it is");
        }
        journal.close();
        ResultJournal afterRestart = new ResultJournal(dir, codec);
        assertEquals(List.of("t2", "t1"), afterRestart.pending().stream().map(TaskResult::taskId).toList(),
                "and kept in the new journal");
        afterRestart.close();
    }

    @Test
    void aResultTheDiskRefusesIsStillOffered() throws Exception {
        boolean full = Files.isWritable(Path.of("/dev/full"));
        // Skipped only off Linux and off CI: with CI=true every test runs.
        assertTrue(full || !"true".equals(System.getenv("CI")), "needs Linux's /dev/full; with CI=true this test "
                + "must run");
        Assumptions.assumeTrue(full, "needs Linux's /dev/full");
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        journal.record(TaskResult.ended("t1", ResultStatus.FAILED, "no", 1));
        journal.close();
        // A full disk: every write fails with ENOSPC.
        Path log = dir.resolve("log");
        Path kept = Files.move(log, dir.resolve("log.kept"));
        Files.createSymbolicLink(log, Path.of("/dev/full"));
        TaskResult refused = TaskResult.ended("t2", ResultStatus.FAILED, "no room", 1);
        assertThrows(UncheckedIOException.class, () -> journal.record(refused));
        assertEquals(List.of("t1", "t2"), journal.pending().stream().map(TaskResult::taskId).toList(),
                "held, and offered until acknowledged");
        Files.delete(log);
        Files.move(kept, log);
    }
}
