package dev.efferent.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertEquals(List.of(result), new ResultJournal(dir, new ProtocolCodec()).pending(), "survives a restart");
        journal.acknowledge("t1");
        assertEquals(List.of(), journal.pending());
    }

    @Test
    void tasksRunningWhenTheWorkerStoppedAreReportedAsFailed() {
        new ResultJournal(dir, new ProtocolCodec()).markRunning("t7");
        ResultJournal afterRestart = new ResultJournal(dir, new ProtocolCodec());
        assertEquals(1, afterRestart.recoverAfterRestart());
        assertEquals(List.of(TaskResult.ended("t7", ResultStatus.FAILED, "worker restarted while running", 0)),
                afterRestart.pending());
        assertEquals(0, afterRestart.recoverAfterRestart(), "reported once");
    }

    @Test
    void taskIdsCannotNameFilesElsewhere() throws Exception {
        ResultJournal journal = new ResultJournal(dir.resolve("journal"), new ProtocolCodec());
        journal.markRunning("../../escape");
        assertTrue(Files.exists(dir.resolve("journal/running/.._.._escape")));
        assertTrue(Files.notExists(dir.resolve("escape")));
    }

    @Test
    void findsTheResultOfOneTaskWithoutReadingTheOthers() throws Exception {
        ResultJournal journal = new ResultJournal(dir, new ProtocolCodec());
        TaskResult mine = TaskResult.ended("t1", ResultStatus.FAILED, "no", 1);
        journal.record(mine);
        journal.record(TaskResult.ended("t2", ResultStatus.FAILED, "no", 1));
        assertEquals(java.util.Optional.of(mine), journal.pending("t1"));
        assertEquals(java.util.Optional.empty(), journal.pending("t3"), "never ran here");
        // Another id that maps to the same file name is not taken for it.
        journal.record(TaskResult.ended("a/b", ResultStatus.FAILED, "no", 1));
        assertEquals(java.util.Optional.empty(), journal.pending("a_b"));
        journal.acknowledge("t1");
        assertEquals(java.util.Optional.empty(), journal.pending("t1"), "acknowledged");
        Files.writeString(dir.resolve("results/t9.json"), "{not json");
        assertEquals(java.util.Optional.empty(), journal.pending("t9"), "an unreadable file is no result");
        assertTrue(Files.exists(dir.resolve("results/t9.json.broken")), "and is moved aside");
    }
}
