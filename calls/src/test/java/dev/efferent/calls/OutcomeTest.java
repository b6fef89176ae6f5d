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
        Outcome outcome = Outcome.of(task(TaskStatus.COMPLETED, Optional.of("""
                {"content":[{"type":"text","text":"hello"},{"type":"image","mimeType":"image/png","data":"AA=="}],\
                "isError":false}"""), Optional.empty())).orElseThrow();

        assertTrue(outcome.ok());
        assertEquals("hello\n[an image, image/png, shown to the person]", outcome.text());
    }

    @Test
    void aResultTheToolMarkedAsAnErrorCompletedButIsNotOk() {
        Outcome outcome = Outcome.of(task(TaskStatus.COMPLETED, Optional.of("""
                {"content":[{"type":"text","text":"no such file"}],"isError":true}"""), Optional.empty()))
                .orElseThrow();

        assertInstanceOf(Outcome.Completed.class, outcome);
        assertFalse(outcome.ok());
        assertEquals("no such file", outcome.text());
    }

    @Test
    void failedAndCancelledTasksSayWhy() {
        assertEquals(new Outcome.Failed("Worker disconnected"),
                Outcome.of(task(TaskStatus.FAILED, Optional.empty(), Optional.of("Worker disconnected"))).orElseThrow());
        assertEquals(new Outcome.Failed("no reason given"),
                Outcome.of(task(TaskStatus.FAILED, Optional.empty(), Optional.empty())).orElseThrow());
        assertEquals(new Outcome.Cancelled("cancelled"),
                Outcome.of(task(TaskStatus.CANCELLED, Optional.empty(), Optional.empty())).orElseThrow());
    }

    @Test
    void aTaskThatHasNotFinishedHasNoOutcome() {
        assertEquals(Optional.empty(), Outcome.of(task(TaskStatus.RUNNING, Optional.empty(), Optional.empty())));
    }

    private static Task task(TaskStatus status, Optional<String> result, Optional<String> error) {
        Instant now = Instant.EPOCH;
        return new Task("t1", "read_file", "{}", 5, status, 1, 1, now, Duration.ofMinutes(5), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), result, error,
                now, now, Optional.empty(), Optional.empty());
    }
}
