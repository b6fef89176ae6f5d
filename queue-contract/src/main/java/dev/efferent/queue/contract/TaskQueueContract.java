package dev.efferent.queue.contract;

import dev.efferent.queue.ClaimRequest;
import dev.efferent.queue.Enqueued;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskNotFoundException;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every {@link TaskQueue} must show. A provider's test extends this class and implements
 * {@link #openQueue(Clock)}; each test gets a fresh, empty queue driven by a {@link MutableClock}.
 * Providers are expected to use a retry backoff of 1 second, doubling, for the retry tests
 * ({@code retry-backoff=PT1S}, the default).
 */
public abstract class TaskQueueContract {
    /** Lease used by claims in these tests. */
    protected static final Duration LEASE = Duration.ofSeconds(30);
    /** The clock every queue under test runs on. */
    protected final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    /** The queue under test. */
    protected TaskQueue queue;

    /** For a provider's test class. */
    protected TaskQueueContract() {
    }

    /** Opens a fresh, empty queue on {@code clock}. */
    protected abstract TaskQueue openQueue(Clock clock);

    /**
     * Whether the provider claims tasks as it adds them ({@link TaskQueue#addAll(List, List, Duration)}); one that keeps
     * the default adds them all queued (false here, as in the SPI).
     */
    protected boolean claimsOnAdd() {
        return false;
    }

    @BeforeEach
    void openTheQueue() {
        queue = openQueue(clock);
    }

    @AfterEach
    void closeTheQueue() {
        queue.close();
    }

    /** A task of {@code tool} with default settings. */
    protected Task enqueue(String tool) {
        return queue.enqueue(NewTask.builder(tool, "{}").build());
    }

    /** Claims for worker {@code worker} that can run {@code tools}, up to {@code limit}. */
    protected List<Task> claim(String worker, int limit, String... tools) {
        return queue.claim(new ClaimRequest(worker, Set.of(tools), limit, LEASE));
    }

    private List<String> ids(List<Task> tasks) {
        return tasks.stream().map(Task::id).toList();
    }

    @Test
    void enqueuedTaskIsQueuedWithItsSettings() {
        Task task = queue.enqueue(NewTask.builder("read_file", "{\"path\":\"a.txt\"}").priority(7)
                .timeout(Duration.ofSeconds(40)).maxAttempts(3).session("console:1").build());
        assertEquals(TaskStatus.QUEUED, task.status());
        assertEquals("read_file", task.tool());
        assertEquals("{\"path\":\"a.txt\"}", task.params());
        assertEquals(7, task.priority());
        assertEquals(0, task.attempt());
        assertEquals(3, task.maxAttempts());
        assertEquals(Duration.ofSeconds(40), task.timeout());
        assertEquals("console:1", task.session().orElseThrow());
        assertEquals(clock.instant(), task.createdAt());
        assertEquals(task, queue.get(task.id()).orElseThrow());
        assertEquals(1, queue.countQueued());
    }

    @Test
    void theOriginIsKeptAsGivenAndNeverRead() {
        // Any text: the queue stores who asked for its caller and does not parse it.
        String origin = "{\"kind\":\"assistant\",\"turn\":\"t1\",\"note\":\"é ' ; --\"}";
        Task enqueued = queue.enqueue(NewTask.builder("read_file", "{}").session("console:1").origin(origin).build());
        Task added = queue.addAll(List.of(NewTask.builder("read_file", "{}").origin(origin).idempotencyKey("k1").build()),
                List.of(""), LEASE).getFirst().task();

        assertEquals(Optional.of(origin), queue.get(enqueued.id()).orElseThrow().origin());
        assertEquals(Optional.of(origin), added.origin());
        assertEquals(Optional.of(origin), queue.get(added.id()).orElseThrow().origin());
        assertEquals(Optional.empty(), queue.enqueue(NewTask.builder("read_file", "{}").build()).origin());
    }

    @Test
    void anAddGivesBackTheTaskAsTheQueueKeepsIt() {
        // Instants finer than a database keeps them (nanoseconds, a half microsecond) and a timeout finer than a
        // millisecond: what an add returns is what a read gives later.
        clock.advance(Duration.ofNanos(123_456_500));
        List<Enqueued> added = queue.addAll(List.of(
                        NewTask.builder("t", "{\"n\":1}").session("r").targetWorker("w1").build(),
                        NewTask.builder("t", "{\"n\":2}").held().build(),
                        NewTask.builder("t", "{\"n\":3}").runAt(clock.instant().plusNanos(2_789))
                                .timeout(Duration.ofNanos(1_500_000_700)).maxAttempts(2).priority(9).build()),
                List.of("w1", "", "w1"), LEASE);
        List<Task> tasks = new ArrayList<>(added.stream().map(Enqueued::task).toList());
        tasks.add(queue.enqueue(NewTask.builder("t", "{\"n\":4}").build()));
        for (Task task : tasks) {
            assertEquals(task, queue.get(task.id()).orElseThrow());
        }
    }

    @Test
    void getOfUnknownIdIsEmpty() {
        assertTrue(queue.get("no-such-task").isEmpty());
    }

    @Test
    void changesToUnknownTasksNameTheId() {
        TaskNotFoundException e = assertThrows(TaskNotFoundException.class, () -> queue.cancel("nope", "x"));
        assertEquals("no task with id 'nope'", e.getMessage());
        assertThrows(TaskNotFoundException.class, () -> queue.complete("nope", "{}"));
        assertThrows(TaskNotFoundException.class, () -> queue.start("nope", "w1", LEASE));
    }

    @Test
    void claimsHighestPriorityFirstThenOldest() {
        Task normal = enqueue("t");
        clock.advance(Duration.ofMillis(1));
        Task urgentOld = queue.enqueue(NewTask.builder("t", "{}").priority(9).build());
        clock.advance(Duration.ofMillis(1));
        Task low = queue.enqueue(NewTask.builder("t", "{}").priority(1).build());
        clock.advance(Duration.ofMillis(1));
        Task urgentNew = queue.enqueue(NewTask.builder("t", "{}").priority(9).build());

        List<Task> claimed = claim("w1", 10, "t");
        assertEquals(List.of(urgentOld.id(), urgentNew.id(), normal.id(), low.id()), ids(claimed));
    }

    @Test
    void ordersAcrossToolsInOneClaim() {
        Task a = queue.enqueue(NewTask.builder("a", "{}").priority(2).build());
        Task b = queue.enqueue(NewTask.builder("b", "{}").priority(8).build());
        assertEquals(List.of(b.id(), a.id()), ids(claim("w1", 5, "a", "b")));
    }

    @Test
    void claimsOnlyToolsTheWorkerHas() {
        Task read = enqueue("read_file");
        Task shell = enqueue("run_shell");
        List<Task> claimed = claim("w1", 10, "read_file", "stat");
        assertEquals(List.of(read.id()), ids(claimed));
        assertEquals(TaskStatus.QUEUED, queue.get(shell.id()).orElseThrow().status());
        assertTrue(claim("w2", 10, "browser_navigate").isEmpty());
    }

    @Test
    void targetedTaskGoesOnlyToItsWorker() {
        Task targeted = queue.enqueue(NewTask.builder("t", "{}").targetWorker("w2").build());
        assertTrue(claim("w1", 10, "t").isEmpty());
        assertEquals(1, queue.countQueued("w2", Set.of("t")));
        assertEquals(0, queue.countQueued("w1", Set.of("t")));
        assertEquals(List.of(targeted.id()), ids(claim("w2", 10, "t")));
    }

    @Test
    void claimRespectsTheLimitAndMarksTasksClaimed() {
        for (int i = 0; i < 8; i++) {
            enqueue("t");
        }
        List<Task> claimed = claim("w1", 3, "t");
        assertEquals(3, claimed.size());
        for (Task t : claimed) {
            assertEquals(TaskStatus.CLAIMED, t.status());
            assertEquals(1, t.attempt());
            assertEquals("w1", t.leaseOwner().orElseThrow());
            assertEquals(clock.instant().plus(LEASE), t.leaseExpiresAt().orElseThrow());
            assertEquals(t, queue.get(t.id()).orElseThrow());
        }
        assertEquals(5, queue.countQueued());
        assertEquals(5, claim("w1", 8, "t").size());
        assertTrue(claim("w1", 8, "t").isEmpty());
    }

    @Test
    void concurrentClaimersNeverClaimATaskTwice() throws Exception {
        int taskCount = 600;
        for (int i = 0; i < taskCount; i++) {
            queue.enqueue(NewTask.builder(i % 2 == 0 ? "a" : "b", "{}").priority(1 + i % 10).build());
        }
        int threads = 8;
        Set<String> seen = ConcurrentHashMap.newKeySet();
        List<String> duplicates = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                String worker = "w" + w;
                results.add(pool.submit(() -> {
                    go.await();
                    int mine = 0;
                    while (true) {
                        List<Task> batch = claim(worker, 1 + mine % 5, "a", "b");
                        if (batch.isEmpty()) {
                            return mine;
                        }
                        for (Task t : batch) {
                            if (!seen.add(t.id())) {
                                synchronized (duplicates) {
                                    duplicates.add(t.id());
                                }
                            }
                        }
                        mine += batch.size();
                    }
                }));
            }
            go.countDown();
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(List.of(), duplicates, "tasks claimed twice");
            assertEquals(taskCount, total);
            assertEquals(taskCount, seen.size());
            assertEquals(0, queue.countQueued());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void legalLifecycleClaimStartComplete() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        clock.advance(Duration.ofSeconds(1));
        Task running = queue.start(task.id(), "w1", Duration.ofMinutes(2));
        assertEquals(TaskStatus.RUNNING, running.status());
        assertEquals(clock.instant().plus(Duration.ofMinutes(2)), running.leaseExpiresAt().orElseThrow());
        clock.advance(Duration.ofSeconds(1));
        Task done = queue.complete(task.id(), "{\"content\":[]}");
        assertEquals(TaskStatus.COMPLETED, done.status());
        assertEquals("{\"content\":[]}", done.result().orElseThrow());
        assertEquals(clock.instant(), done.finishedAt().orElseThrow());
        assertTrue(done.leaseExpiresAt().isEmpty());
        assertEquals(done, queue.get(task.id()).orElseThrow());
    }

    @Test
    void aClaimedTaskMayCompleteBeforeItsStartIsSeen() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        assertEquals(TaskStatus.COMPLETED, queue.complete(task.id(), "{}").status());
    }

    @Test
    void illegalTransitionsAreRefusedAndNameTheStatus() {
        Task task = enqueue("t");
        IllegalTransitionException e = assertThrows(IllegalTransitionException.class,
                () -> queue.start(task.id(), "w1", LEASE));
        assertEquals("cannot start task " + task.id() + ": it is queued", e.getMessage());
        assertEquals(TaskStatus.QUEUED, e.current());
        assertThrows(IllegalTransitionException.class, () -> queue.complete(task.id(), "{}"));
        assertThrows(IllegalTransitionException.class, () -> queue.fail(task.id(), "x", false));
        assertThrows(IllegalTransitionException.class, () -> queue.release(task.id(), "w1"));

        claim("w1", 1, "t");
        queue.start(task.id(), "w1", LEASE);
        assertThrows(IllegalTransitionException.class, () -> queue.start(task.id(), "w1", LEASE));
        queue.complete(task.id(), "{}");

        IllegalTransitionException twice = assertThrows(IllegalTransitionException.class,
                () -> queue.complete(task.id(), "{}"));
        assertEquals("cannot complete task " + task.id() + ": it is completed", twice.getMessage());
        assertThrows(IllegalTransitionException.class, () -> queue.fail(task.id(), "x", true));
        assertEquals("{}", queue.get(task.id()).orElseThrow().result().orElseThrow());
    }

    @Test
    void onlyTheLeaseOwnerMayStartRenewOrRelease() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        QueueException e = assertThrows(QueueException.class, () -> queue.start(task.id(), "w2", LEASE));
        assertTrue(e.getMessage().contains("held by worker w1, not w2"), e.getMessage());
        assertThrows(QueueException.class, () -> queue.renewLease(task.id(), "w2", LEASE));
        assertThrows(QueueException.class, () -> queue.release(task.id(), "w2"));
        assertEquals(TaskStatus.CLAIMED, queue.get(task.id()).orElseThrow().status());
    }

    @Test
    void idempotencyKeyGivesTheFirstTaskBack() {
        Task first = queue.enqueue(NewTask.builder("t", "{\"n\":1}").idempotencyKey("k-1").build());
        Task second = queue.enqueue(NewTask.builder("t", "{\"n\":2}").idempotencyKey("k-1").build());
        assertEquals(first.id(), second.id());
        assertEquals("{\"n\":1}", second.params());
        assertEquals(1, queue.countQueued());
        Task other = queue.enqueue(NewTask.builder("t", "{}").idempotencyKey("k-2").build());
        assertFalse(other.id().equals(first.id()));

        claim("w1", 5, "t");
        queue.complete(first.id(), "{}");
        Task again = queue.enqueue(NewTask.builder("t", "{}").idempotencyKey("k-1").build());
        assertEquals(first.id(), again.id());
        assertEquals(TaskStatus.COMPLETED, again.status());
    }

    @Test
    void addSaysWhetherItCreatedTheTask() {
        Enqueued first = queue.add(NewTask.builder("t", "{}").idempotencyKey("k-9").build());
        assertTrue(first.created());
        Enqueued again = queue.add(NewTask.builder("t", "{\"n\":2}").idempotencyKey("k-9").build());
        assertFalse(again.created(), "the idempotency key matched: nothing was created");
        assertEquals(first.task().id(), again.task().id());
        assertTrue(queue.add(NewTask.builder("t", "{}").build()).created());
        assertEquals(2, queue.countQueued());
    }

    @Test
    void cancelAQueuedTask() {
        Task task = enqueue("t");
        Task cancelled = queue.cancel(task.id(), "cancelled by user");
        assertEquals(TaskStatus.CANCELLED, cancelled.status());
        assertEquals("cancelled by user", cancelled.error().orElseThrow());
        assertEquals(clock.instant(), cancelled.finishedAt().orElseThrow());
        assertEquals(0, queue.countQueued());
        assertTrue(claim("w1", 5, "t").isEmpty());
    }

    @Test
    void cancelADelayedTask() {
        Task task = queue.enqueue(NewTask.builder("t", "{}").runAt(clock.instant().plusSeconds(60)).build());
        queue.cancel(task.id(), "no longer needed");
        clock.advance(Duration.ofMinutes(2));
        assertTrue(claim("w1", 5, "t").isEmpty());
        assertEquals(0, queue.countQueued());
    }

    @Test
    void cancelAClaimedTask() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        assertEquals(TaskStatus.CANCELLED, queue.cancel(task.id(), "x").status());
        assertThrows(IllegalTransitionException.class, () -> queue.start(task.id(), "w1", LEASE));
        clock.advance(LEASE.multipliedBy(2));
        assertTrue(queue.requeueExpiredLeases().isEmpty(), "a cancelled task holds no lease");
    }

    @Test
    void cancelARunningTaskAndIgnoreItsLateResult() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        queue.start(task.id(), "w1", LEASE);
        assertEquals(TaskStatus.CANCELLED, queue.cancel(task.id(), "cancelled by user").status());
        assertThrows(IllegalTransitionException.class, () -> queue.complete(task.id(), "{}"));
        assertEquals(TaskStatus.CANCELLED, queue.get(task.id()).orElseThrow().status());
    }

    @Test
    void finishedTasksCannotBeCancelled() {
        Task done = enqueue("t");
        claim("w1", 1, "t");
        queue.complete(done.id(), "{}");
        assertThrows(IllegalTransitionException.class, () -> queue.cancel(done.id(), "x"));
        Task cancelled = enqueue("t");
        queue.cancel(cancelled.id(), "x");
        IllegalTransitionException e = assertThrows(IllegalTransitionException.class,
                () -> queue.cancel(cancelled.id(), "again"));
        assertEquals("cannot cancel task " + cancelled.id() + ": it is cancelled", e.getMessage());
    }

    @Test
    void heartbeatRenewsTheLeasesOfTasksAWorkerIsRunning() {
        Task running = enqueue("t");
        Task claimedOnly = enqueue("t");
        Task otherWorkers = enqueue("u");
        claim("w1", 1, "t");
        queue.start(running.id(), "w1", LEASE);
        claim("w1", 1, "t");
        claim("w2", 1, "u");
        queue.start(otherWorkers.id(), "w2", LEASE);
        clock.advance(Duration.ofSeconds(20));
        assertEquals(1, queue.renewLeases("w1", LEASE));
        assertEquals(clock.instant().plus(LEASE), queue.get(running.id()).orElseThrow().leaseExpiresAt().orElseThrow());
        clock.advance(Duration.ofSeconds(15));
        List<String> expired = ids(queue.requeueExpiredLeases());
        assertTrue(expired.containsAll(List.of(claimedOnly.id(), otherWorkers.id())), expired.toString());
        assertFalse(expired.contains(running.id()));
        assertEquals(TaskStatus.RUNNING, queue.get(running.id()).orElseThrow().status());
    }

    @Test
    void aRunningTaskHandedBackByItsWorkerIsQueuedAgainWithoutCountingTheAttempt() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        queue.start(task.id(), "w1", LEASE);
        assertThrows(QueueException.class, () -> queue.release(task.id(), "w2"), "only the lease holder");
        Task back = queue.release(task.id(), "w1");
        assertEquals(TaskStatus.QUEUED, back.status());
        assertEquals(0, back.attempt());
        assertTrue(back.leaseOwner().isEmpty());
        assertEquals(1, claim("w2", 1, "t").getFirst().attempt());
    }

    @Test
    void releaseGivesAClaimBackWithoutCountingTheAttempt() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        Task released = queue.release(task.id(), "w1");
        assertEquals(TaskStatus.QUEUED, released.status());
        assertEquals(0, released.attempt());
        assertTrue(released.leaseOwner().isEmpty());
        List<Task> again = claim("w2", 1, "t");
        assertEquals(List.of(task.id()), ids(again));
        assertEquals(1, again.getFirst().attempt());
    }

    @Test
    void expiredClaimIsRequeuedWithoutCountingTheAttempt() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        clock.advance(LEASE.minusSeconds(1));
        assertTrue(queue.requeueExpiredLeases().isEmpty());
        clock.advance(Duration.ofSeconds(2));
        List<Task> requeued = queue.requeueExpiredLeases();
        assertEquals(List.of(task.id()), ids(requeued));
        Task t = queue.get(task.id()).orElseThrow();
        assertEquals(TaskStatus.QUEUED, t.status());
        assertEquals(0, t.attempt());
        assertEquals(1, claim("w2", 1, "t").size());
    }

    @Test
    void expiredRunningTaskIsRetriedWhileAttemptsRemainThenFailed() {
        Task task = queue.enqueue(NewTask.builder("t", "{}").maxAttempts(2).build());
        claim("w1", 1, "t");
        queue.start(task.id(), "w1", LEASE);
        clock.advance(LEASE.plusSeconds(1));
        assertEquals(List.of(task.id()), ids(queue.requeueExpiredLeases()));
        Task retried = queue.get(task.id()).orElseThrow();
        assertEquals(TaskStatus.QUEUED, retried.status());
        assertEquals(1, retried.attempt());
        assertTrue(retried.error().orElseThrow().contains("expired"), retried.error().orElseThrow());

        clock.advance(Duration.ofMinutes(10));
        Task second = claim("w2", 1, "t").getFirst();
        assertEquals(2, second.attempt());
        queue.start(task.id(), "w2", LEASE);
        clock.advance(LEASE.plusSeconds(1));
        queue.requeueExpiredLeases();
        Task failed = queue.get(task.id()).orElseThrow();
        assertEquals(TaskStatus.FAILED, failed.status());
        assertTrue(failed.error().orElseThrow().contains("lease of worker w2 expired"), failed.error().orElseThrow());
    }

    @Test
    void renewedLeaseDoesNotExpire() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        queue.start(task.id(), "w1", LEASE);
        clock.advance(Duration.ofSeconds(20));
        queue.renewLease(task.id(), "w1", LEASE);
        clock.advance(Duration.ofSeconds(20));
        assertTrue(queue.requeueExpiredLeases().isEmpty());
        assertEquals(TaskStatus.RUNNING, queue.get(task.id()).orElseThrow().status());
    }

    @Test
    void aTaskThatCompletesAfterAFailedAttemptKeepsNoError() {
        Task task = queue.enqueue(NewTask.builder("t", "{}").maxAttempts(3).build());
        claim("w1", 1, "t");
        queue.fail(task.id(), "Worker disconnected", true);
        clock.advance(Duration.ofSeconds(1));
        claim("w2", 1, "t");
        Task done = queue.complete(task.id(), "{}");
        assertEquals(TaskStatus.COMPLETED, done.status());
        assertEquals(Optional.empty(), done.error(), "a completed task does not also say it failed");
        assertEquals(Optional.empty(), queue.get(task.id()).orElseThrow().error());
        Task other = queue.enqueue(NewTask.builder("t", "{}").maxAttempts(3).build());
        claim("w1", 1, "t");
        queue.fail(other.id(), "boom", true);
        clock.advance(Duration.ofSeconds(1));
        claim("w2", 1, "t");
        assertEquals(Optional.empty(), queue.completeAll(Map.of(other.id(), "{}")).getFirst().error());
    }

    @Test
    void failedAttemptIsRetriedWithDoublingBackoffUntilAttemptsRunOut() {
        Task task = queue.enqueue(NewTask.builder("t", "{}").maxAttempts(3).build());

        claim("w1", 1, "t");
        Task first = queue.fail(task.id(), "boom 1", true);
        assertEquals(TaskStatus.QUEUED, first.status());
        assertEquals(1, first.attempt());
        assertEquals(clock.instant().plusSeconds(1), first.runAt());
        assertEquals("boom 1", first.error().orElseThrow());
        assertTrue(claim("w1", 1, "t").isEmpty(), "not due before the backoff");
        assertEquals(1, queue.countQueued());

        clock.advance(Duration.ofSeconds(1));
        assertEquals(2, claim("w1", 1, "t").getFirst().attempt());
        Task second = queue.fail(task.id(), "boom 2", true);
        assertEquals(clock.instant().plusSeconds(2), second.runAt());

        clock.advance(Duration.ofSeconds(2));
        assertEquals(3, claim("w1", 1, "t").getFirst().attempt());
        Task last = queue.fail(task.id(), "boom 3", true);
        assertEquals(TaskStatus.FAILED, last.status());
        assertEquals(3, last.attempt());
        assertEquals("boom 3", last.error().orElseThrow());
        assertEquals(clock.instant(), last.finishedAt().orElseThrow());
    }

    @Test
    void failWithoutRetryEndsTheTaskAtOnce() {
        Task task = queue.enqueue(NewTask.builder("t", "{}").maxAttempts(5).build());
        claim("w1", 1, "t");
        Task failed = queue.fail(task.id(), "bad params", false);
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals(1, failed.attempt());
    }

    @Test
    void taskWithFutureRunAtWaitsForIt() {
        Task later = queue.enqueue(NewTask.builder("t", "{}").runAt(clock.instant().plusSeconds(30)).build());
        assertEquals(1, queue.countQueued());
        assertEquals(1, queue.countQueued("w1", Set.of("t")));
        assertTrue(claim("w1", 5, "t").isEmpty());
        clock.advance(Duration.ofSeconds(29));
        assertTrue(claim("w1", 5, "t").isEmpty());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(List.of(later.id()), ids(claim("w1", 5, "t")));
    }

    @Test
    void listsByStatusOldestFirst() {
        Task a = enqueue("t");
        clock.advance(Duration.ofMillis(5));
        Task b = enqueue("t");
        clock.advance(Duration.ofMillis(5));
        Task c = enqueue("t");
        claim("w1", 1, "t");
        queue.start(a.id(), "w1", LEASE);
        assertEquals(List.of(b.id(), c.id()), ids(queue.list(Set.of(TaskStatus.QUEUED), 10)));
        assertEquals(List.of(a.id()), ids(queue.list(Set.of(TaskStatus.RUNNING), 10)));
        assertEquals(List.of(a.id(), b.id()), ids(queue.list(Set.of(TaskStatus.QUEUED, TaskStatus.RUNNING), 2)));
        assertEquals(3, queue.list(Set.of(), 10).size(), "no status filter lists every task");
        assertEquals(List.of(c.id(), b.id()), ids(queue.listNewest(Set.of(TaskStatus.QUEUED), 10)));
        assertEquals(List.of(c.id()), ids(queue.listNewest(Set.of(), 1)));
    }

    @Test
    void cleanupDeletesOnlyTasksFinishedBeforeTheCutoff() {
        Task old = enqueue("t");
        Task oldCancelled = enqueue("t");
        Task stillQueued = enqueue("t");
        claim("w1", 1, "t");
        queue.complete(old.id(), "{}");
        queue.cancel(oldCancelled.id(), "x");
        clock.advance(Duration.ofDays(8));
        Task recent = enqueue("t");
        claim("w1", 5, "t").forEach(t -> {
            if (!t.id().equals(recent.id())) {
                queue.release(t.id(), "w1");
            }
        });
        queue.complete(recent.id(), "{}");

        int deleted = queue.deleteFinishedBefore(clock.instant().minus(Duration.ofDays(7)));
        assertEquals(2, deleted);
        assertTrue(queue.get(old.id()).isEmpty());
        assertTrue(queue.get(oldCancelled.id()).isEmpty());
        assertTrue(queue.get(recent.id()).isPresent());
        assertEquals(TaskStatus.QUEUED, queue.get(stillQueued.id()).orElseThrow().status());
    }

    @Test
    void enqueueAllAddsEveryTaskInOrder() {
        List<Task> added = queue.enqueueAll(List.of(NewTask.builder("a", "{}").build(),
                NewTask.builder("b", "{}").priority(9).build()));
        assertEquals(List.of("a", "b"), added.stream().map(Task::tool).toList());
        assertEquals(2, queue.countQueued());
        assertEquals(added.get(1).id(), claim("w1", 1, "a", "b").getFirst().id());
    }

    @Test
    void completeAllStoresEveryResultOfTasksStillInFlight() {
        Task a = enqueue("t");
        Task b = enqueue("t");
        Task gone = enqueue("t");
        claim("w1", 3, "t");
        queue.cancel(gone.id(), "changed my mind");
        List<Task> done = queue.completeAll(Map.of(a.id(), "{\"n\":1}", b.id(), "{\"n\":2}", gone.id(), "{}"));
        assertEquals(Set.of(a.id(), b.id()), Set.copyOf(ids(done)));
        assertEquals("{\"n\":2}", queue.get(b.id()).orElseThrow().result().orElseThrow());
        assertEquals(TaskStatus.COMPLETED, queue.get(a.id()).orElseThrow().status());
        assertEquals(TaskStatus.CANCELLED, queue.get(gone.id()).orElseThrow().status());
    }

    @Test
    void addAllAddsEachAsAddWouldInOrder() {
        Task before = queue.enqueue(NewTask.builder("t", "{}").idempotencyKey("k-old").build());
        List<Enqueued> added = queue.addAll(List.of(
                NewTask.builder("t", "{\"n\":1}").build(),
                NewTask.builder("t", "{\"n\":2}").idempotencyKey("k-old").build(),
                NewTask.builder("t", "{\"n\":3}").idempotencyKey("k-new").build(),
                NewTask.builder("t", "{\"n\":4}").idempotencyKey("k-new").build(),
                NewTask.builder("t", "{\"n\":5}").held().build()));
        assertEquals(5, added.size());
        assertEquals(List.of(true, false, true, false, true), added.stream().map(Enqueued::created).toList());
        assertEquals("{\"n\":1}", added.get(0).task().params());
        assertEquals(before.id(), added.get(1).task().id(), "a key used before gives its task back");
        assertEquals(added.get(2).task().id(), added.get(3).task().id(), "a key used earlier in the batch, too");
        assertEquals("{\"n\":3}", added.get(3).task().params());
        assertEquals(TaskStatus.AWAITING_APPROVAL, added.get(4).task().status());
        assertEquals(3, queue.countQueued(), "the old task and two new ones are queued; the held one is not");
        assertEquals(List.of(), queue.addAll(List.of()));
    }

    @Test
    void addAllClaimsTheTasksItMayForTheWorkersNamed() {
        Task before = queue.enqueue(NewTask.builder("t", "{}").idempotencyKey("k-old").build());
        List<Enqueued> added = queue.addAll(List.of(
                NewTask.builder("t", "{\"n\":1}").build(),
                NewTask.builder("t", "{\"n\":2}").build(),
                NewTask.builder("t", "{\"n\":3}").idempotencyKey("k-old").build(),
                NewTask.builder("t", "{\"n\":4}").held().build(),
                NewTask.builder("t", "{\"n\":5}").runAt(clock.instant().plusSeconds(60)).build(),
                NewTask.builder("t", "{\"n\":6}").targetWorker("w2").build(),
                NewTask.builder("t", "{\"n\":7}").targetWorker("w1").build()),
                List.of("w1", "", "w1", "w1", "w1", "w1", "w1"), LEASE);
        assertEquals(7, added.size());
        List<TaskStatus> claimed = claimsOnAdd() ? List.of(TaskStatus.CLAIMED, TaskStatus.QUEUED, TaskStatus.QUEUED,
                TaskStatus.AWAITING_APPROVAL, TaskStatus.QUEUED, TaskStatus.QUEUED, TaskStatus.CLAIMED)
                : List.of(TaskStatus.QUEUED, TaskStatus.QUEUED, TaskStatus.QUEUED, TaskStatus.AWAITING_APPROVAL,
                TaskStatus.QUEUED, TaskStatus.QUEUED, TaskStatus.QUEUED);
        assertEquals(claimed, added.stream().map(e -> e.task().status()).toList(),
                "claimed only when due, not held, not meant for another worker and not a key used before");
        assertEquals(before.id(), added.get(2).task().id());
        assertEquals(List.of(true, true, false, true, true, true, true), added.stream().map(Enqueued::created).toList());
        if (!claimsOnAdd()) {
            return;
        }
        Task first = added.get(0).task();
        assertEquals(Optional.of("w1"), first.leaseOwner());
        assertEquals(1, first.attempt());
        assertEquals(Optional.of(clock.instant().plus(LEASE)), first.leaseExpiresAt());
        Task stored = queue.get(first.id()).orElseThrow();
        assertEquals(List.of(TaskStatus.CLAIMED, Optional.of("w1"), 1), List.of(stored.status(), stored.leaseOwner(),
                stored.attempt()), "stored as returned");
        // Not claimed a second time; the others are claimed as usual.
        assertEquals(Set.of(before.id(), added.get(1).task().id()), Set.copyOf(ids(claim("w1", 10, "t"))));
        assertEquals(List.of(added.get(5).task().id()), ids(claim("w2", 10, "t")));
        // The worker it was claimed for starts and completes it as any claimed task; a lease not renewed runs out.
        assertEquals(TaskStatus.RUNNING, queue.start(first.id(), "w1", LEASE).status());
        assertEquals(TaskStatus.COMPLETED, queue.complete(first.id(), "{}").status());
        clock.advance(LEASE.plusSeconds(1));
        assertTrue(ids(queue.requeueExpiredLeases()).contains(added.get(6).task().id()));
        assertEquals(TaskStatus.QUEUED, queue.get(added.get(6).task().id()).orElseThrow().status());
        assertThrows(IllegalArgumentException.class, () -> queue.addAll(List.of(NewTask.builder("t", "{}").build()),
                List.of(), LEASE));
    }

    @Test
    void completeAllLeavesAloneWhatIsNotInFlight() {
        Task done = enqueue("t");
        Task running = enqueue("t");
        claim("w1", 2, "t");
        queue.complete(done.id(), "{\"first\":true}");
        queue.start(running.id(), "w1", LEASE);
        Task queued = enqueue("t");
        List<Task> stored = queue.completeAll(Map.of(done.id(), "{\"again\":true}", running.id(), "{}",
                queued.id(), "{}", "nope", "{}"));
        assertEquals(List.of(running.id()), ids(stored), "only the task in flight is completed");
        assertEquals("{\"first\":true}", queue.get(done.id()).orElseThrow().result().orElseThrow(),
                "a stored result is never overwritten by a repeated one");
        assertEquals(TaskStatus.QUEUED, queue.get(queued.id()).orElseThrow().status());
        assertTrue(queue.get("nope").isEmpty());
    }

    @Test
    void startAllLeavesARunningTaskAsItIs() {
        Task task = enqueue("t");
        claim("w1", 1, "t");
        Task running = queue.startAll(Map.of(task.id(), "w1"), LEASE).getFirst();
        queue.progress(task.id(), "w1", new Progress(40, "half way", clock.instant()));
        assertEquals(List.of(), queue.startAll(Map.of(task.id(), "w1"), Duration.ofMinutes(9)),
                "a repeated acceptance starts nothing");
        Task now = queue.get(task.id()).orElseThrow();
        assertEquals(TaskStatus.RUNNING, now.status());
        assertEquals(running.leaseExpiresAt(), now.leaseExpiresAt());
        assertEquals(40, now.progress().orElseThrow().percent(), "its progress kept");
    }

    @Test
    void startAllStartsTheTasksStillClaimedByTheirWorker() {
        Task a = enqueue("t");
        Task b = enqueue("t");
        Task gone = enqueue("t");
        Task other = enqueue("t");
        claim("w1", 3, "t");
        claim("w2", 1, "t");
        queue.cancel(gone.id(), "changed my mind");
        List<Task> started = queue.startAll(Map.of(a.id(), "w1", b.id(), "w1", gone.id(), "w1",
                other.id(), "w1"), LEASE);
        assertEquals(Set.of(a.id(), b.id()), Set.copyOf(ids(started)));
        assertEquals(TaskStatus.RUNNING, queue.get(a.id()).orElseThrow().status());
        assertEquals(TaskStatus.CANCELLED, queue.get(gone.id()).orElseThrow().status());
        assertEquals(TaskStatus.CLAIMED, queue.get(other.id()).orElseThrow().status(),
                "claimed by another worker: not started by w1's acceptance");
        assertEquals(List.of(), queue.startAll(Map.of(), LEASE));
    }

    @Test
    void taskIdsAreUnique() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertTrue(ids.add(enqueue("t").id()));
        }
    }

    @Test
    void progressIsKeptWhileTheAttemptRunsAndOnlyFromItsWorker() {
        Task task = enqueue("run_shell");
        claim("w1", 1, "run_shell");
        Progress half = new Progress(50, "line 5", clock.instant());
        assertFalse(queue.progress(task.id(), "w1", half), "a claimed task that has not started has no progress");
        queue.start(task.id(), "w1", LEASE);
        assertFalse(queue.progress(task.id(), "w2", half), "another worker's progress is refused");
        assertTrue(queue.get(task.id()).orElseThrow().progress().isEmpty());
        assertTrue(queue.progress(task.id(), "w1", half));
        assertEquals(Optional.of(half), queue.get(task.id()).orElseThrow().progress());
        queue.renewLease(task.id(), "w1", LEASE);
        assertEquals(Optional.of(half), queue.get(task.id()).orElseThrow().progress(), "a lease renewal keeps it");
        Task done = queue.complete(task.id(), "{}");
        assertTrue(done.progress().isEmpty(), "a finished task shows no progress");
        assertFalse(queue.progress(task.id(), "w1", half));
        assertFalse(queue.progress("no-such-task", "w1", half));
    }

    @Test
    void aNewAttemptStartsWithoutTheLastOnesProgress() {
        Task task = queue.enqueue(NewTask.builder("run_shell", "{}").maxAttempts(2).build());
        claim("w1", 1, "run_shell");
        queue.start(task.id(), "w1", LEASE);
        queue.progress(task.id(), "w1", new Progress(90, "almost", clock.instant()));
        queue.fail(task.id(), "boom", true);
        clock.advance(Duration.ofMinutes(1));
        claim("w2", 1, "run_shell");
        assertTrue(queue.start(task.id(), "w2", LEASE).progress().isEmpty());
    }

    @Test
    void aHeldTaskIsNeverClaimedUntilApproved() {
        Task held = queue.enqueue(NewTask.builder("run_shell", "{\"command\":\"rm -rf build\"}").held().build());
        assertEquals(TaskStatus.AWAITING_APPROVAL, held.status());
        assertTrue(claim("w1", 10, "run_shell").isEmpty(), "a held task is not claimed");
        assertEquals(0, queue.countQueued());
        assertEquals(0, queue.countQueued("w1", Set.of("run_shell")));
        assertEquals(List.of(held.id()), ids(queue.list(Set.of(TaskStatus.AWAITING_APPROVAL), 10)));

        Task approved = queue.approve(held.id());
        assertEquals(TaskStatus.QUEUED, approved.status());
        assertEquals(List.of(held.id()), ids(claim("w1", 10, "run_shell")), "approved, it is claimed like any other");
        assertThrows(IllegalTransitionException.class, () -> queue.approve(held.id()), "approved once only");
        assertThrows(TaskNotFoundException.class, () -> queue.approve("no-such-task"));
    }

    @Test
    void aDeniedOrExpiredHeldTaskIsCancelledWithItsReason() {
        Task held = queue.enqueue(NewTask.builder("run_shell", "{}").held().build());
        Task denied = queue.deny(held.id(), "denied by the user: not now");
        assertEquals(TaskStatus.CANCELLED, denied.status());
        assertEquals("denied by the user: not now", denied.error().orElseThrow());
        assertThrows(IllegalTransitionException.class, () -> queue.approve(held.id()), "a denied task stays denied");

        Task expired = queue.enqueue(NewTask.builder("run_shell", "{}").held().build());
        assertEquals("no answer in 10m", queue.deny(expired.id(), "no answer in 10m").error().orElseThrow());

        Task cancelled = queue.enqueue(NewTask.builder("run_shell", "{}").held().build());
        assertEquals(TaskStatus.CANCELLED, queue.cancel(cancelled.id(), "stopped by the user").status(),
                "a held task can be cancelled like any other");
    }

    @Test
    void anAnswerThatComesSecondLoses() {
        Task held = queue.enqueue(NewTask.builder("run_shell", "{}").held().build());
        queue.approve(held.id());
        assertThrows(IllegalTransitionException.class, () -> queue.deny(held.id(), "too late"),
                "a deny after the approval changes nothing");
        assertEquals(TaskStatus.QUEUED, queue.get(held.id()).orElseThrow().status());
        Task other = queue.enqueue(NewTask.builder("run_shell", "{}").held().build());
        queue.deny(other.id(), "no");
        assertThrows(IllegalTransitionException.class, () -> queue.approve(other.id()));
        assertThrows(TaskNotFoundException.class, () -> queue.deny("no-such-task", "x"));
    }

    @Test
    void aHeldTaskForAWorkerWaitsForItAfterApproval() {
        Task held = queue.enqueue(NewTask.builder("read_file", "{}").targetWorker("laptop").held().build());
        queue.approve(held.id());
        assertTrue(claim("w2", 10, "read_file").isEmpty(), "only its worker claims it");
        assertEquals(List.of(held.id()), ids(claim("laptop", 10, "read_file")));
    }
}
