package dev.efferent.router;

import dev.efferent.protocol.Message;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Over a queue that stores writes in batches (a database), the router stores results off its thread and acknowledges
 * each once stored: a result the queue could not store is not acknowledged, and stored when the worker sends it again.
 * Calls submitted together are queued in one statement, acceptances that arrive together started in one, and a task
 * whose result comes with its acceptance is never started (decision 34).
 */
class BatchedResultsTest extends RouterFixture {
    private final AtomicBoolean down = new AtomicBoolean();
    /** How many more completeAll calls fail. */
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger batches = new AtomicInteger();
    private final List<Integer> sizes = new ArrayList<>();
    /** Holds completeAll until counted down, when set. */
    private volatile CountDownLatch hold;
    /** Holds addAll, and with it the router's thread, until counted down, when set. */
    private volatile CountDownLatch holdAdds;
    private final CountDownLatch addsHeld = new CountDownLatch(1);
    private final List<Integer> addSizes = new CopyOnWriteArrayList<>();
    private final List<Integer> startSizes = new CopyOnWriteArrayList<>();
    private final AtomicInteger claims = new AtomicInteger();
    private final AtomicInteger reads = new AtomicInteger();

    /** The memory queue, as one that batches completions, and that can be made to fail them. */
    private TaskQueue batching(TaskQueue memory) {
        return (TaskQueue) Proxy.newProxyInstance(TaskQueue.class.getClassLoader(), new Class<?>[]{TaskQueue.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("batchesWrites")) {
                        return true;
                    }
                    if (method.getName().equals("addAll")) {
                        addSizes.add(((List<?>) args[0]).size());
                        CountDownLatch h = holdAdds;
                        if (h != null) {
                            holdAdds = null;
                            addsHeld.countDown();
                            h.await();
                        }
                    }
                    if (method.getName().equals("startAll")) {
                        startSizes.add(((Map<?, ?>) args[0]).size());
                    }
                    if (method.getName().equals("claim")) {
                        claims.incrementAndGet();
                    }
                    if (method.getName().equals("get")) {
                        reads.incrementAndGet();
                    }
                    if (method.getName().equals("completeAll")) {
                        if (hold != null) {
                            hold.await();
                        }
                        if (down.get() || failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                            throw new QueueException("the database is down");
                        }
                        batches.incrementAndGet();
                        synchronized (sizes) {
                            sizes.add(((Map<?, ?>) args[0]).size());
                        }
                    }
                    try {
                        return method.invoke(memory, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** A router over the batching queue, {@code w} registered with it and running one task: its dispatch. */
    private TaskDispatch runningOn(FakeWorker w) {
        queue = batching(openQueue());
        start(true);
        w.register(router, 2, FakeWorker.tool("run_shell", false));
        router.submit(TaskRequest.of("run_shell", params("{}")));
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        return d;
    }

    @Test
    void resultsAreStoredInBatchesAndAcknowledgedOnceStored() {
        queue = batching(openQueue());
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 64, FakeWorker.tool("run_shell", false));
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ids.add(router.submit(TaskRequest.of("run_shell", params("{}"))).task().id());
        }
        List<TaskDispatch> dispatched = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            dispatched.add(w.next(TaskDispatch.class));
        }
        dispatched.forEach(w::accept);
        dispatched.forEach(d -> w.complete(d, "done " + d.taskId()));
        for (String id : ids) {
            assertEquals(TaskStatus.COMPLETED, await(id).status());
        }
        int acks = 0;
        for (int i = 0; i < 64; i++) {
            acks += w.next(TaskResultAck.class) != null ? 1 : 0;
        }
        assertEquals(64, acks);
        assertTrue(batches.get() < 64, "64 results in " + batches.get() + " statements: " + sizes);
    }

    @Test
    void aResultTheQueueCouldNotStoreIsNotAcknowledgedAndIsStoredWhenSentAgain() throws InterruptedException {
        FakeWorker w = new FakeWorker("laptop");
        TaskDispatch d = runningOn(w);
        String id = d.taskId();
        down.set(true);
        w.complete(d, "first");
        w.complete(d, "the same, sent again at once");
        // Refused, then refused again when tried once more a second later.
        assertTrue(w.quietFor(1800).stream().noneMatch(m -> m instanceof TaskResultAck), "nothing was stored");
        awaitStatus(id, TaskStatus.RUNNING);
        down.set(false);
        w.complete(d, "offered again");
        assertEquals(TaskStatus.COMPLETED, await(id).status());
        assertEquals(id, w.next(TaskResultAck.class).taskId());
        assertTrue(router.task(id).orElseThrow().result().orElseThrow().contains("offered again"));
    }

    @Test
    void aBatchTheQueueRefusedOnceIsStoredASecondLaterWithoutTheWorkerSendingItAgain() throws InterruptedException {
        FakeWorker w = new FakeWorker("laptop");
        TaskDispatch d = runningOn(w);
        failures.set(1);
        w.complete(d, "stored at the second try");
        assertEquals(TaskStatus.COMPLETED, await(d.taskId()).status());
        assertEquals(d.taskId(), w.next(TaskResultAck.class).taskId());
        assertTrue(router.task(d.taskId()).orElseThrow().result().orElseThrow().contains("second try"));
    }

    @Test
    void aResultBeingStoredWhenItsWorkerGoesIsKeptNotFailedAsDisconnected() throws InterruptedException {
        FakeWorker w = new FakeWorker("laptop");
        TaskDispatch d = runningOn(w);
        String id = d.taskId();
        hold = new CountDownLatch(1);
        // A stopping worker: its last result, then the close, before the brain has stored the result.
        w.complete(d, "finished before it left");
        Thread.sleep(100);
        w.disconnect("worker shutting down");
        Thread.sleep(200);
        hold.countDown();
        assertEquals(TaskStatus.COMPLETED, await(id).status());
        assertTrue(router.task(id).orElseThrow().result().orElseThrow().contains("finished before it left"));
    }

    /** Submits a call on another thread and waits until the router's thread is held in its addAll. */
    private CountDownLatch holdRouterWith(ExecutorService callers,
                                                               List<Future<Submission>> answers)
            throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        holdAdds = release;
        answers.add(callers.submit(() -> router.submit(TaskRequest.of("run_shell", params("{}")))));
        assertTrue(addsHeld.await(10, TimeUnit.SECONDS), "the first call reached the queue");
        return release;
    }

    @Test
    void callsSubmittedTogetherAreQueuedInOneStatementAndEachAnsweredAlone() throws Exception {
        queue = batching(openQueue());
        start(quietPolls());
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 8, FakeWorker.tool("run_shell", false));
        ExecutorService callers = Executors.newFixedThreadPool(9);
        try {
            List<Future<Submission>> answers = new ArrayList<>();
            CountDownLatch release = holdRouterWith(callers, answers);
            for (int i = 0; i < 7; i++) {
                answers.add(callers.submit(() -> router.submit(TaskRequest.of("run_shell", params("{}")))));
            }
            Future<Submission> unknown = callers.submit(() ->
                    router.submit(TaskRequest.of("no_such_tool", params("{}"))));
            for (int i = 0; i < 400 && router.pendingSubmissions() < 8; i++) {
                Thread.sleep(25);
            }
            assertEquals(8, router.pendingSubmissions(), "eight calls wait while the first is queued");
            claims.set(0);
            release.countDown();
            Set<String> ids = new HashSet<>();
            for (Future<Submission> answer : answers) {
                Submission s = answer.get(10, TimeUnit.SECONDS);
                assertEquals(Submission.Outcome.RUNNING, s.outcome());
                ids.add(s.task().id());
            }
            assertEquals(8, ids.size(), "each caller got its own task");
            var refused = Assertions.assertThrows(ExecutionException.class,
                    () -> unknown.get(10, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof RouterException r && r.kind() == RouterException.Kind.BAD_REQUEST,
                    "the bad call alone is refused: " + refused.getCause());
            assertEquals(List.of(1, 7), addSizes, "the first call alone, then the seven sent while it was queued");
            assertEquals(0, claims.get(), "the worker had found the queue drained: each task claimed as it was queued");
            for (int i = 0; i < 8; i++) {
                assertTrue(ids.contains(w.next(TaskDispatch.class).taskId()));
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void acceptancesThatArriveTogetherAreStartedInOneStatementAndProgressWaitsForTheStart() throws Exception {
        queue = batching(openQueue());
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 9, FakeWorker.tool("run_shell", false));
        List<TaskDispatch> dispatched = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            router.submit(TaskRequest.of("run_shell", params("{}")));
            dispatched.add(w.next(TaskDispatch.class));
        }
        ExecutorService callers = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch release = holdRouterWith(callers, new ArrayList<>());
            dispatched.forEach(w::accept);
            w.progress(dispatched.get(0), 40, "halfway, nearly");
            release.countDown();
            for (TaskDispatch d : dispatched) {
                awaitStatus(d.taskId(), TaskStatus.RUNNING);
            }
            assertTrue(startSizes.contains(8), "eight acceptances in one statement: " + startSizes);
            String first = dispatched.get(0).taskId();
            // Stored right after the start, by the same event: wait for it as for the starts.
            for (int i = 0; i < 200 && queue.get(first).orElseThrow().progress().isEmpty(); i++) {
                Thread.sleep(25);
            }
            assertEquals(40, queue.get(first).orElseThrow().progress().map(Progress::percent).orElse(-1),
                    "the progress that came before the start was stored is kept");
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * A router over the batching queue, {@code w} registered with it and a call of a read-only tool (a task that may
     * run again) dispatched to it, not yet answered.
     */
    private TaskDispatch dispatchedTo(FakeWorker w) {
        queue = batching(openQueue());
        start(true);
        w.register(router, 3, FakeWorker.tool("read_file", true), FakeWorker.tool("run_shell", false));
        router.submit(TaskRequest.of("read_file", params("{}")));
        return w.next(TaskDispatch.class);
    }

    /** What a test sends while the router's thread is held. */
    @FunctionalInterface
    private interface Events {
        void send() throws Exception;
    }

    /** Sends {@code events} while the router's thread is held in an addAll, so that they reach it together. */
    private void whileRouterHeld(Events events) throws Exception {
        ExecutorService callers = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch release = holdRouterWith(callers, new ArrayList<>());
            events.send();
            release.countDown();
        } finally {
            // Not shutdownNow: the held call goes on once released.
            callers.shutdown();
        }
    }

    @Test
    void aTaskWhoseResultComesWithItsAcceptanceIsCompletedWithoutAStart() throws Exception {
        FakeWorker w = new FakeWorker("laptop");
        TaskDispatch d = dispatchedTo(w);
        // A quick tool: its acceptance and its result reach the brain together.
        whileRouterHeld(() -> {
            w.accept(d);
            w.complete(d, "done at once");
        });
        assertEquals(TaskStatus.COMPLETED, await(d.taskId()).status());
        // (The held call's task is dispatched meanwhile, and left unanswered.)
        assertTrue(w.quietFor(10 * StartBatcher.GRACE.toMillis() + 200).stream().anyMatch(m ->
                m instanceof TaskResultAck a && a.taskId().equals(d.taskId())), "the result was acknowledged");
        assertEquals(List.of(), startSizes, "no start stored for it, then or later");
    }

    @Test
    void anAcceptanceWithoutItsResultIsStartedWithinMoments() throws InterruptedException {
        FakeWorker w = new FakeWorker("laptop");
        TaskDispatch d = dispatchedTo(w);
        w.accept(d);
        awaitStatus(d.taskId(), TaskStatus.RUNNING);
        assertEquals(List.of(1), startSizes);
    }

    @Test
    void progressStoresItsOwnTasksStartAtOnceWithTheStartsDueAmongThemAShellCallsWhichDoesNotWait() throws Exception {
        FakeWorker w = new FakeWorker("laptop");
        TaskDispatch reporting = dispatchedTo(w);
        router.submit(TaskRequest.of("run_shell", params("{}")));
        TaskDispatch shell = w.next(TaskDispatch.class);
        whileRouterHeld(() -> {
            w.accept(reporting);
            w.accept(shell);
            w.progress(reporting, 10, "begun");
        });
        for (TaskDispatch d : List.of(reporting, shell)) {
            awaitStatus(d.taskId(), TaskStatus.RUNNING);
        }
        // The read's start, which would wait for its result, is stored with the progress; the shell call's, which
        // never waits, is due by then and goes with it.
        assertEquals(List.of(2), startSizes);
    }

    @Test
    void aTaskLeftUnstartedForItsResultIsStartedAfterAllWhenTheResultCannotBeStored() throws Exception {
        FakeWorker w = new FakeWorker("laptop");
        TaskDispatch d = dispatchedTo(w);
        whileRouterHeld(() -> {
            w.accept(d);
            w.complete(d, "not stored");
            down.set(true);
        });
        // Refused twice (at once and a second later): the task is started after all, and shows as running on its
        // worker while it waits for the worker to offer the result again.
        assertTrue(w.quietFor(1800).stream().noneMatch(m -> m instanceof TaskResultAck), "nothing was stored");
        awaitStatus(d.taskId(), TaskStatus.RUNNING);
        down.set(false);
        w.complete(d, "offered again");
        assertEquals(TaskStatus.COMPLETED, await(d.taskId()).status());
    }

    private void awaitStatus(String id, TaskStatus expected) throws InterruptedException {
        for (int i = 0; i < 200 && status(id) != expected; i++) {
            Thread.sleep(25);
        }
        assertEquals(expected, status(id));
    }

    @Test
    void slotsFreedByABatchOfResultsAreFilledWithOneClaimNotOnePerResult() throws Exception {
        queue = batching(openQueue());
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 8, FakeWorker.tool("run_shell", false));
        for (int i = 0; i < 16; i++) {
            router.submit(TaskRequest.of("run_shell", params("{}")));
        }
        List<TaskDispatch> first = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            first.add(w.next(TaskDispatch.class));
        }
        first.forEach(w::accept);
        hold = new CountDownLatch(1);
        claims.set(0);
        first.forEach(d -> w.complete(d, "done"));
        Thread.sleep(300);
        hold.countDown();
        for (int i = 0; i < 8; i++) {
            nextDispatch(w);
        }
        assertTrue(claims.get() <= 3, "the eight queued tasks were claimed in " + claims.get() + " claims");
    }

    @Test
    void aCallerWaitingForATaskJustQueuedIsRegisteredWithoutReadingTheQueue() throws Exception {
        queue = batching(openQueue());
        start(quietPolls());
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 1, FakeWorker.tool("run_shell", false));
        router.submit(TaskRequest.of("run_shell", params("{}")));
        Submission queued = router.submit(TaskRequest.of("run_shell", params("{}")));
        assertEquals(Submission.Outcome.QUEUED_BUSY, queued.outcome());
        reads.set(0);
        CompletableFuture<Task> done = router.completion(queued.task().id());
        assertEquals(0, reads.get(), "a task queued here and not finished needs no read");
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        w.complete(d, "first");
        TaskDispatch second = nextDispatch(w);
        assertEquals(queued.task().id(), second.taskId());
        w.accept(second);
        w.complete(second, "second");
        assertEquals(TaskStatus.COMPLETED, done.get(10, TimeUnit.SECONDS).status());
        // Once finished, it is read again: whoever asks gets it as stored.
        assertEquals(TaskStatus.COMPLETED, router.completion(queued.task().id()).get(10,
                TimeUnit.SECONDS).status());
        assertTrue(reads.get() > 0);
    }

    @Test
    void aTaskForAWorkerThatDrainedTheQueueIsClaimedAsItIsQueued() throws Exception {
        FakeWorker w = idleWorkerOver(batching(openQueue()));
        Submission s = router.submit(TaskRequest.of("run_shell", params("{}")));
        assertEquals(Submission.Outcome.RUNNING, s.outcome());
        assertEquals(TaskStatus.CLAIMED, queue.get(s.task().id()).orElseThrow().status());
        assertEquals(0, claims.get(), "one write queued and claimed it");
        TaskDispatch d = w.next(TaskDispatch.class);
        assertEquals(s.task().id(), d.taskId());
        assertEquals(1, d.attempt());
        w.accept(d);
        w.complete(d, "done");
        assertEquals(TaskStatus.COMPLETED, router.completion(s.task().id()).get(10,
                TimeUnit.SECONDS).status());
    }

    @Test
    void aTaskQueuedBehindOthersIsNotClaimedAheadOfThem() throws Exception {
        queue = batching(openQueue());
        start(quietPolls());
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 1, FakeWorker.tool("run_shell", false));
        Submission first = router.submit(TaskRequest.of("run_shell", params("{}")));
        Submission second = router.submit(TaskRequest.of("run_shell", params("{}")));
        Submission third = router.submit(TaskRequest.of("run_shell", params("{}")));
        assertEquals(Submission.Outcome.RUNNING, first.outcome());
        assertEquals(Submission.Outcome.QUEUED_BUSY, second.outcome());
        assertEquals(Submission.Outcome.QUEUED_BUSY, third.outcome());
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        w.complete(d, "first");
        // The slot freed: the older of the two waiting goes first, and a new call queues behind the last.
        TaskDispatch next = nextDispatch(w);
        assertEquals(second.task().id(), next.taskId());
        Submission fourth = router.submit(TaskRequest.of("run_shell", params("{}")));
        assertEquals(Submission.Outcome.QUEUED_BUSY, fourth.outcome());
        assertEquals(TaskStatus.QUEUED, queue.get(fourth.task().id()).orElseThrow().status());
        w.accept(next);
        w.complete(next, "second");
        assertEquals(third.task().id(), nextDispatch(w).taskId());
    }

    @Test
    void aQueueThatDoesNotClaimOnAddingStillHasTheTaskDispatchedAtOnce() throws Exception {
        TaskQueue memory = openQueue();
        // As a provider that keeps TaskQueue's default: every task added queued.
        queue = batching((TaskQueue) Proxy.newProxyInstance(TaskQueue.class.getClassLoader(),
                new Class<?>[]{TaskQueue.class}, (proxy, method, args) -> {
                    try {
                        if (method.getName().equals("addAll") && args.length == 3) {
                            return memory.addAll((List<NewTask>) args[0]);
                        }
                        return method.invoke(memory, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }));
        FakeWorker w = idleWorkerOver(queue);
        Submission s = router.submit(TaskRequest.of("run_shell", params("{}")));
        assertEquals(Submission.Outcome.RUNNING, s.outcome());
        assertEquals(1, claims.get(), "claimed after it was queued");
        assertEquals(s.task().id(), w.next(TaskDispatch.class).taskId());
    }

    /** A router over {@code q} with one idle worker of two slots, its claims counted from zero. */
    private FakeWorker idleWorkerOver(TaskQueue q) {
        queue = q;
        start(quietPolls());
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("run_shell", false));
        router.workers(); // once the router's thread is past the registration and its claim
        claims.set(0);
        return w;
    }

    /** The next dispatch, past the acknowledgements sent before it. */
    private static TaskDispatch nextDispatch(FakeWorker w) {
        while (true) {
            if (w.next(Message.class) instanceof TaskDispatch d) {
                return d;
            }
        }
    }

    /** Polls far apart: a poll claims for every worker and reads the tasks waited for, which these tests count. */
    private static RouterSettings quietPolls() {
        return RouterSettings.defaults().withHands(true).withHeartbeatInterval(HEARTBEAT)
                .withPollInterval(Duration.ofMinutes(1));
    }
}
