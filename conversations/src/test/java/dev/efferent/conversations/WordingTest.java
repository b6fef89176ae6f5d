package dev.efferent.conversations;

import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Submission;
import dev.efferent.router.Waiting;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The router reports facts; these are the words a person reads for them. */
class WordingTest {
    private static final Task TASK = new Task("k3x9m2qa7bfd", "read_file", "{}", 5, TaskStatus.QUEUED, 0, 1,
            Instant.EPOCH, Duration.ofMinutes(5), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Instant.EPOCH, Instant.EPOCH,
            Optional.empty(), Optional.empty());

    @Test
    void whatBecameOfARequest() {
        assertEquals("Your machine is offline. I've queued this task (k3x9m2qa7bfd).",
                Wording.of(new Submission(TASK, Submission.Outcome.QUEUED_OFFLINE, Optional.empty())));
        assertEquals("Running read_file on laptop (k3x9m2qa7bfd).",
                Wording.of(new Submission(TASK, Submission.Outcome.RUNNING, Optional.of("laptop"))));
        assertEquals("Every worker that has read_file is busy. I've queued this task (k3x9m2qa7bfd).",
                Wording.of(new Submission(TASK, Submission.Outcome.QUEUED_BUSY, Optional.empty())));
        assertEquals("This request was already submitted as task k3x9m2qa7bfd.",
                Wording.of(new Submission(TASK, Submission.Outcome.DUPLICATE, Optional.empty())));
    }

    @Test
    void whyATaskWaits() {
        assertEquals("waiting for a worker that has read_file to come online",
                Wording.of(new Waiting.NoWorkerOnline("read_file")));
        assertEquals("waiting for worker laptop to come online", Wording.of(new Waiting.WorkerOffline("laptop")));
        assertEquals("worker laptop does not offer read_file (any more); cancel the task or start a worker that has it",
                Wording.of(new Waiting.WorkerLacksTool("laptop", "read_file")));
    }
}
