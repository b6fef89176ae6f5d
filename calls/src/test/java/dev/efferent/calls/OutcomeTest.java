package dev.efferent.calls;

import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutcomeTest {
    @Test
    void aCompletedTasksResultIsReadOnce() {
        Outcome outcome = Outcome.of(task(TaskStatus.COMPLETED, """
                {"content":[{"type":"text","text":"hello"},{"type":"image","mimeType":"image/png","data":"AA=="}],\
                "isError":false}""", "")).orElseThrow();

        assertTrue(outcome.ok());
        assertEquals("hello\n[an image, image/png, shown to the person]", outcome.text());
    }

    @Test
    void aResultTheToolMarkedAsAnErrorCompletedButIsNotOk() {
        Outcome outcome = Outcome.of(task(TaskStatus.COMPLETED, """
                {"content":[{"type":"text","text":"no such file"}],"isError":true}""", ""))
                .orElseThrow();

        assertInstanceOf(Outcome.Completed.class, outcome);
        assertFalse(outcome.ok());
        assertEquals("no such file", outcome.text());
    }

    @Test
    void failedAndCancelledTasksSayWhy() {
        assertEquals(new Outcome.Failed("Worker disconnected"),
                Outcome.of(task(TaskStatus.FAILED, "", "Worker disconnected")).orElseThrow());
        assertEquals(new Outcome.Failed("no reason given"),
                Outcome.of(task(TaskStatus.FAILED, "", "")).orElseThrow());
        assertEquals(new Outcome.Cancelled("cancelled"),
                Outcome.of(task(TaskStatus.CANCELLED, "", "")).orElseThrow());
    }

    @Test
    void aTaskThatHasNotFinishedHasNoOutcome() {
        assertEquals(Optional.empty(), Outcome.of(task(TaskStatus.RUNNING, "", "")));
    }

    /** A task with the {@code result} and {@code error} given; an empty one for none. */
    private static Task task(TaskStatus status, String result, String error) {
        Instant now = Instant.EPOCH;
        return new Task("t1", "read_file", "{}", 5, status, 1, 1, now, Duration.ofMinutes(5), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(result).filter(r -> !r.isEmpty()), Optional.of(error).filter(e -> !e.isEmpty()),
                now, now, Optional.empty(), Optional.empty());
    }
}
