package dev.efferent.router;

import dev.efferent.protocol.TaskDispatch;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The router's heart: the phases of a dispatched task, the view readers see, and waits told of offline machines. */
class RouterHeartTest extends RouterFixture {

    @Test
    void aDispatchedTaskMovesThroughItsPhasesAndRefusesAnEventItsPhaseDoesNotAllow() {
        Inflight f = new Inflight(sampleTask(), null, true, Instant.EPOCH);
        assertEquals(Inflight.Phase.SENT, f.phase());
        assertFalse(f.accepted());
        f.on(Inflight.Event.ACCEPTED);
        assertTrue(f.accepted());
        f.on(Inflight.Event.RESULT_BEFORE_START);
        assertEquals(Inflight.Phase.UNSTARTED, f.phase());
        assertTrue(f.accepted(), "a task whose start was left out was still accepted: lost, it fails or runs again");
        f.on(Inflight.Event.STORING);
        assertTrue(f.storing());
        f.on(Inflight.Event.BATCH_RETURNED);
        assertEquals(Inflight.Phase.UNSTARTED, f.phase(), "a batch back leaves the task where it was");
        f.on(Inflight.Event.STARTED_AFTER_ALL);
        assertEquals(Inflight.Phase.RUNNING, f.phase());
        f.on(Inflight.Event.STOPPED);
        assertTrue(f.stopping());
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> f.on(Inflight.Event.ACCEPTED));
        assertTrue(twice.getMessage().contains("ACCEPTED in phase STOPPING"), twice.getMessage());
        assertThrows(IllegalStateException.class, () -> f.on(Inflight.Event.STOPPED));
    }

    @Test
    void aTaskBeingStoredMayBeCancelledAndThenStaysCancelled() {
        Inflight f = new Inflight(sampleTask(), null, false, Instant.EPOCH);
        f.on(Inflight.Event.STORING);
        f.on(Inflight.Event.STOPPED);
        assertTrue(f.stopping());
        assertThrows(IllegalStateException.class, () -> f.on(Inflight.Event.BATCH_RETURNED));
    }

    @Test
    void workersAndToolsAreReadWhileTheRoutersThreadIsStuckInTheQueue() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TaskQueue memory = openQueue();
        // A queue whose adding hangs, as a database that stopped answering: the router's thread waits in it.
        queue = (TaskQueue) Proxy.newProxyInstance(TaskQueue.class.getClassLoader(), new Class<?>[]{TaskQueue.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("addAll") && inside.getCount() > 0) {
                        inside.countDown();
                        release.await();
                    }
                    try {
                        return method.invoke(memory, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 1, FakeWorker.tool("run_shell", false));
        CompletableFuture<Void> stuck = CompletableFuture.runAsync(() -> router.submit(
                TaskRequest.of("run_shell", params("{}"))));
        assertTrue(inside.await(10, TimeUnit.SECONDS), "the router's thread is inside the queue");
        try {
            // Another thread, which posted nothing, reads without waiting for the router's thread.
            CompletableFuture<List<WorkerInfo>> workers = CompletableFuture.supplyAsync(router::workers);
            CompletableFuture<List<ToolInfo>> tools = CompletableFuture.supplyAsync(router::tools);
            assertEquals("laptop", workers.get(10, TimeUnit.SECONDS).getFirst().name());
            assertEquals("run_shell", tools.get(10, TimeUnit.SECONDS).getFirst().descriptor().name());
            assertFalse(stuck.isDone(), "the submission still waits for the router's thread");
        } finally {
            release.countDown();
        }
        stuck.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWaitForATaskQueuedForAnOfflineMachineEndsAtOnce() throws Exception {
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 1, FakeWorker.tool("run_shell", false));
        w.disconnect("gone");
        String id = router.submit(TaskRequest.of("run_shell", params("{}")).onWorker("laptop")).task().id();
        Awaited awaited = router.finishedOrOffline(id).get(10, TimeUnit.SECONDS);
        Awaited.Offline offline = assertInstanceOf(Awaited.Offline.class, awaited);
        assertEquals(new Waiting.WorkerOffline("laptop"), offline.why());
    }

    @Test
    void aWaitIsToldWhenTheOnlyMachineWithTheToolGoesAway() throws Exception {
        start(true);
        FakeWorker busy = new FakeWorker("laptop");
        busy.register(router, 1, FakeWorker.tool("run_shell", false));
        String first = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        busy.accept(busy.next(TaskDispatch.class));
        // Queued behind the first, its machine busy: the wait goes on.
        String second = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        CompletableFuture<Awaited> waiting = router.finishedOrOffline(second);
        assertFalse(waiting.isDone(), "a busy machine is not an offline one");
        busy.disconnect("network gone");
        Awaited.Offline offline = assertInstanceOf(Awaited.Offline.class, waiting.get(10, TimeUnit.SECONDS));
        assertEquals(new Waiting.NoWorkerOnline("run_shell"), offline.why());
        assertEquals(TaskStatus.FAILED, await(first).status(), "the running one failed with its worker");
    }

    @Test
    void aWaitForATaskThatFinishesHearsItsResult() throws Exception {
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 1, FakeWorker.tool("run_shell", false));
        String id = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        CompletableFuture<Awaited> waiting = router.finishedOrOffline(id);
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        w.complete(d, "done");
        Awaited.Finished finished = assertInstanceOf(Awaited.Finished.class, waiting.get(10, TimeUnit.SECONDS));
        assertEquals(TaskStatus.COMPLETED, finished.task().status());
    }

    @Test
    void aWaitIsToldWhenATaskBackForAnotherTryHasNoMachineLeft() throws Exception {
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        // Read-only: a task lost with its worker runs again, after a backoff, rather than failing.
        w.register(router, 1, FakeWorker.tool("stat", true));
        String id = router.submit(TaskRequest.of("stat", params("{}"))).task().id();
        w.accept(w.next(TaskDispatch.class));
        CompletableFuture<Awaited> waiting = router.finishedOrOffline(id);
        w.disconnect("gone");
        // Lost while running, it is due again only after its backoff: then no machine has its tool, and a poll says so.
        Awaited.Offline offline = assertInstanceOf(Awaited.Offline.class, waiting.get(10, TimeUnit.SECONDS));
        assertEquals(new Waiting.NoWorkerOnline("stat"), offline.why());
        assertEquals(TaskStatus.QUEUED, status(id));
    }

    @Test
    void aWorkerTakingOverItsOwnIdIsNotReportedOfflineToWhoeverWaits() throws Exception {
        start(true);
        FakeWorker old = new FakeWorker("laptop");
        old.register(router, 1, FakeWorker.tool("run_shell", false));
        router.submit(TaskRequest.of("run_shell", params("{}")).onWorker("laptop"));
        old.accept(old.next(TaskDispatch.class));
        String queued = router.submit(TaskRequest.of("run_shell", params("{}")).onWorker("laptop")).task().id();
        CompletableFuture<Awaited> waiting = router.finishedOrOffline(queued);
        // The old link died unseen; the worker comes back with its id, and the brain lets it take over.
        old.liveness = FakeWorker.Liveness.UNREACHABLE;
        FakeWorker fresh = new FakeWorker("laptop");
        fresh.register(router, 1, FakeWorker.tool("run_shell", false));
        TaskDispatch d = fresh.next(TaskDispatch.class);
        assertEquals(queued, d.taskId(), "the task waiting for the laptop goes to it as it is back");
        fresh.accept(d);
        fresh.complete(d, "done");
        Awaited awaited = waiting.get(10, TimeUnit.SECONDS);
        assertInstanceOf(Awaited.Finished.class, awaited, "never told the laptop was offline: " + awaited);
    }

    @Test
    void whoeverHearsATaskFinishReadsTheRouterWithoutIt() throws Exception {
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("run_shell", false));
        String id = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        CompletableFuture<Task> done = router.completion(id);
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        w.complete(d, "done");
        done.get(10, TimeUnit.SECONDS);
        // Read on a thread that posted nothing: the view it reads was published before the wait was answered.
        int[] seen = CompletableFuture.supplyAsync(() -> new int[]{router.runningCount(),
                router.workers().getFirst().runningTasks()}).get(10, TimeUnit.SECONDS);
        assertEquals(0, seen[0]);
        assertEquals(0, seen[1]);
    }

    @Test
    void aCallAfterTheRouterClosedIsRefusedNotLeftWaiting() {
        start(true);
        router.close();
        assertThrows(RuntimeException.class, () -> router.completion("any"));
        router = null;
    }

    private Task sampleTask() {
        TaskQueue q = openQueue();
        Task task = q.enqueue(NewTask.builder("run_shell", "{}").build());
        q.close();
        queue = null;
        return task;
    }
}
