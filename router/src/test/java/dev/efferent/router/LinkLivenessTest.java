package dev.efferent.router;

import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.RejectReason;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerHeartbeat;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link that dies without a close is noticed by its silence, long before the heartbeat timeout: quiet links are
 * pinged, and one from which nothing comes back for the link timeout is dead.
 */
class LinkLivenessTest extends RouterFixture {
    /** Heartbeats far apart, so only the link check can notice anything within a test. */
    private Router startWithLinkTimeout(Duration timeout) {
        return start(RouterSettings.defaults().withHands(true).withHeartbeatInterval(Duration.ofSeconds(30))
                .withPollInterval(Duration.ofMillis(100)).withLinkTimeout(timeout));
    }

    @Test
    void aWorkerThatStopsAnsweringIsOfflineWithinTheLinkTimeoutAndItsTaskFails() throws InterruptedException {
        startWithLinkTimeout(Duration.ofMillis(900));
        FakeWorker w = new FakeWorker("laptop");
        w.registerSilently(router, 2, FakeWorker.tool("run_shell", false));
        String id = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        w.accept(w.next(TaskDispatch.class));
        w.liveness = FakeWorker.Liveness.SILENT;
        long start = System.nanoTime();
        assertEquals(4002, w.awaitClose());
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(TaskStatus.FAILED, await(id).status());
        assertFalse(router.workers().getFirst().online());
        System.out.println("silent link declared dead after " + ms + " ms (link timeout 900 ms)");
    }

    @Test
    void aLinkWhosePingCannotBeSentIsDroppedAtOnce() throws InterruptedException {
        startWithLinkTimeout(Duration.ofMillis(900));
        FakeWorker w = new FakeWorker("laptop");
        w.registerSilently(router, 2, FakeWorker.tool("run_shell", false));
        w.liveness = FakeWorker.Liveness.UNREACHABLE;
        assertEquals(4002, w.awaitClose());
        assertFalse(router.workers().getFirst().online());
    }

    /** As {@link #startWithLinkTimeout}, on timers and a clock that move only when {@code time} is advanced. */
    private Router startWithLinkTimeout(Duration timeout, ManualScheduler time) {
        return start(RouterSettings.defaults().withHands(true).withHeartbeatInterval(Duration.ofSeconds(30))
                .withPollInterval(Duration.ofMillis(100)).withLinkTimeout(timeout), time);
    }

    @Test
    void aQuietWorkerThatAnswersPingsStaysOnline() {
        ManualScheduler time = new ManualScheduler(Instant.parse("2026-11-28T12:00:00Z"));
        startWithLinkTimeout(Duration.ofMillis(600), time);
        FakeWorker w = new FakeWorker("laptop");
        w.registerSilently(router, 2, FakeWorker.tool("run_shell", false));
        pass(time, Duration.ofSeconds(2), () -> { });
        assertEquals(0, w.closeCode);
        assertTrue(router.workers().getFirst().online());
    }

    @Test
    void aConnectionThatNeverRegistersIsNotKeptForEver() throws InterruptedException {
        ManualScheduler time = new ManualScheduler(Instant.parse("2026-11-28T12:00:00Z"));
        startWithLinkTimeout(Duration.ofSeconds(3), time);
        FakeWorker idle = new FakeWorker("idle");
        idle.connection = router.connect(idle);
        idle.connection.receive(new WorkerHeartbeat(1, 0.1, 0));
        ErrorMessage early = idle.next(ErrorMessage.class);
        assertEquals(ErrorCode.UNEXPECTED_MESSAGE, early.code());
        time.advance(Duration.ofMillis(9_900));
        assertNull(idle.received.poll(200, TimeUnit.MILLISECONDS), "closed before its 10 s were up");
        time.advance(Duration.ofMillis(100));
        ErrorMessage late = (ErrorMessage) idle.received.poll(15, TimeUnit.SECONDS);
        assertEquals("no worker:register within 10s of connecting", late.message());
        assertEquals(1008, idle.awaitClose());
    }

    @Test
    void aWorkerThatWasBusyGetsTheTaskAgainAsSoonAsAResultFreesASlot() {
        startWithLinkTimeout(Duration.ofSeconds(3));
        FakeWorker w = new FakeWorker("laptop");
        w.registerSilently(router, 2, FakeWorker.tool("run_shell", false));
        String first = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        TaskDispatch a = w.next(TaskDispatch.class);
        w.accept(a);
        String second = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        TaskDispatch b = w.next(TaskDispatch.class);
        w.connection.receive(new TaskRejected(b.taskId(), RejectReason.BUSY,
                "busy"));
        w.complete(a, "done");
        // No heartbeat comes within this test (30 s apart): only the result can say a slot is free.
        w.next(TaskResultAck.class);
        TaskDispatch again = w.next(TaskDispatch.class);
        assertEquals(second, again.taskId());
        assertEquals(first, a.taskId());
    }

    @Test
    void offlineWorkersAreForgottenAfterAWhileWithTheirTools() throws InterruptedException {
        start(RouterSettings.defaults().withHands(true).withHeartbeatInterval(Duration.ofSeconds(30))
                .withPollInterval(Duration.ofMillis(100)).withForgetAfter(Duration.ofMillis(300)));
        FakeWorker w = new FakeWorker("gone");
        w.registerSilently(router, 2, FakeWorker.tool("only_here", false));
        w.disconnect("socket closed");
        assertEquals(1, router.workers().size());
        for (int i = 0; i < 100 && !router.workers().isEmpty(); i++) {
            Thread.sleep(50);
        }
        assertTrue(router.workers().isEmpty(), router.workers().toString());
        assertTrue(router.tools().stream().noneMatch(t -> t.descriptor().name().equals("only_here")),
                router.tools().toString());
    }

    @Test
    void twoOnlineWorkersNeverShareAName() {
        startWithLinkTimeout(Duration.ofSeconds(3));
        FakeWorker a = new FakeWorker("id-a");
        a.connection = router.connect(a);
        a.connection.receive(new WorkerRegister(1, "id-a", "laptop", "h", "test",
                List.of(), 2));
        a.next(WorkerAck.class);
        FakeWorker b = new FakeWorker("id-b");
        b.connection = router.connect(b);
        b.connection.receive(new WorkerRegister(1, "id-b", "laptop", "h", "test",
                List.of(), 2));
        b.next(WorkerAck.class);
        assertEquals(List.of("laptop", "laptop-2"), router.workers().stream().map(WorkerInfo::name).sorted()
                .toList());
    }

    @Test
    void aStoppingWorkerHandsItsRunningTaskBackAndItRunsElsewhereAsTheSameAttempt() throws InterruptedException {
        startWithLinkTimeout(Duration.ofSeconds(3));
        FakeWorker stopping = new FakeWorker("stopping");
        stopping.registerSilently(router, 2, FakeWorker.tool("run_shell", false));
        String id = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        TaskDispatch d = stopping.next(TaskDispatch.class);
        stopping.accept(d);
        stopping.connection.receive(new TaskRejected(id,
                RejectReason.SHUTTING_DOWN, "worker shutting down"));

        FakeWorker other = new FakeWorker("other");
        other.registerSilently(router, 2, FakeWorker.tool("run_shell", false));
        TaskDispatch again = other.next(TaskDispatch.class);
        assertEquals(id, again.taskId());
        assertEquals(1, again.attempt(), "handing back does not use up an attempt");
        other.accept(again);
        other.complete(again, "done elsewhere");
        assertEquals(TaskStatus.COMPLETED, await(id).status());
        router.submit(TaskRequest.of("run_shell", params("{}")));
        assertTrue(stopping.quietFor(300).stream().noneMatch(m -> m instanceof TaskDispatch),
                "nothing more for a worker that is stopping");
    }
}
