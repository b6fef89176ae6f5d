package dev.efferent.router;

import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Over a queue that stores results in batches (a database), the router stores them off its thread and acknowledges
 * each once stored: a result the queue could not store is not acknowledged, and stored when the worker sends it again.
 */
class BatchedResultsTest extends RouterFixture {
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicInteger batches = new AtomicInteger();
    private final List<Integer> sizes = new ArrayList<>();
    /** Holds completeAll until counted down, when set. */
    private volatile java.util.concurrent.CountDownLatch hold;

    /** The memory queue, as one that batches completions, and that can be made to fail them. */
    private TaskQueue batching(TaskQueue memory) {
        return (TaskQueue) Proxy.newProxyInstance(TaskQueue.class.getClassLoader(), new Class<?>[]{TaskQueue.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("batchesCompletions")) {
                        return true;
                    }
                    if (method.getName().equals("completeAll")) {
                        if (hold != null) {
                            hold.await();
                        }
                        if (down.get()) {
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
        start(true, Optional.empty());
        w.register(router, 2, FakeWorker.tool("run_shell", false));
        router.submit(TaskRequest.of("run_shell", params("{}")));
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        return d;
    }

    @Test
    void resultsAreStoredInBatchesAndAcknowledgedOnceStored() {
        queue = batching(openQueue());
        start(true, Optional.empty());
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
        assertTrue(w.quietFor(500).stream().noneMatch(m -> m instanceof TaskResultAck), "nothing was stored");
        assertEquals(TaskStatus.RUNNING, status(id));
        down.set(false);
        w.complete(d, "offered again");
        assertEquals(TaskStatus.COMPLETED, await(id).status());
        assertEquals(id, w.next(TaskResultAck.class).taskId());
        assertTrue(router.task(id).orElseThrow().result().orElseThrow().contains("offered again"));
    }

    @Test
    void aResultBeingStoredWhenItsWorkerGoesIsKeptNotFailedAsDisconnected() throws InterruptedException {
        FakeWorker w = new FakeWorker("laptop");
        TaskDispatch d = runningOn(w);
        String id = d.taskId();
        hold = new java.util.concurrent.CountDownLatch(1);
        // A stopping worker: its last result, then the close, before the brain has stored the result.
        w.complete(d, "finished before it left");
        Thread.sleep(100);
        w.disconnect("worker shutting down");
        Thread.sleep(200);
        hold.countDown();
        assertEquals(TaskStatus.COMPLETED, await(id).status());
        assertTrue(router.task(id).orElseThrow().result().orElseThrow().contains("finished before it left"));
    }
}
