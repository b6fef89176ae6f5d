package dev.efferent.router;

import dev.efferent.protocol.RejectReason;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A worker's last claim found the queue without work for it: a result from it frees a slot, but the router makes no
 * claim that would find nothing (each is a statement and a commit over PostgreSQL, on the router's thread). Work
 * queued since, here or by another brain, is still claimed.
 */
class DrainedQueueTest extends RouterFixture {
    private final AtomicInteger claims = new AtomicInteger();

    /** The memory queue, counting claims. */
    private TaskQueue counting(TaskQueue memory) {
        return (TaskQueue) Proxy.newProxyInstance(TaskQueue.class.getClassLoader(), new Class<?>[]{TaskQueue.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("claim")) {
                        claims.incrementAndGet();
                    }
                    try {
                        return method.invoke(memory, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private FakeWorker startWithWorker(Duration poll) {
        queue = counting(openQueue());
        start(RouterSettings.defaults().withHands(true).withHeartbeatInterval(Duration.ofMinutes(1))
                .withPollInterval(poll));
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 4, FakeWorker.tool("run_shell", false));
        return w;
    }

    private static void run(FakeWorker w, TaskDispatch d) {
        w.accept(d);
        w.complete(d, "done");
        assertNotNull(w.next(TaskResultAck.class));
    }

    @Test
    void aResultFromADrainedQueueMakesNoClaim() throws InterruptedException {
        FakeWorker w = startWithWorker(Duration.ofMinutes(1));
        String id = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        TaskDispatch d = w.next(TaskDispatch.class);
        int before = claims.get();
        run(w, d);
        assertEquals(TaskStatus.COMPLETED, await(id).status());
        w.quietFor(200);
        assertEquals(before, claims.get(), "claims after a result, with nothing queued");
        // Something queued since: claimed and dispatched at once.
        String next = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        assertEquals(next, w.next(TaskDispatch.class).taskId());
    }

    @Test
    void workQueuedByAnotherBrainMeanwhileIsClaimedAtTheNextPoll() {
        FakeWorker w = startWithWorker(Duration.ofMillis(200));
        router.submit(TaskRequest.of("run_shell", params("{}")));
        TaskDispatch d = w.next(TaskDispatch.class);
        // Another brain on the same queue adds a task; no notice reaches this one.
        String elsewhere = queue.enqueue(NewTask.builder("run_shell", "{}").build()).id();
        run(w, d);
        assertEquals(elsewhere, w.next(TaskDispatch.class).taskId());
    }

    @Test
    void aTaskPutBackByABusyWorkerIsClaimedForTheNextFreeSlot() {
        FakeWorker w = startWithWorker(Duration.ofMinutes(1));
        router.submit(TaskRequest.of("run_shell", params("{}")));
        TaskDispatch first = w.next(TaskDispatch.class);
        String second = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        TaskDispatch again = w.next(TaskDispatch.class);
        assertEquals(second, again.taskId());
        // The worker turns the second away as busy: it goes back to the queue, and to the slot the first frees.
        w.connection.receive(new TaskRejected(again.taskId(), RejectReason.BUSY, "all slots taken"));
        run(w, first);
        assertEquals(second, w.next(TaskDispatch.class).taskId());
    }
}
