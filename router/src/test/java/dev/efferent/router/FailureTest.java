package dev.efferent.router;

import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.RejectReason;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.protocol.WorkerTools;
import dev.efferent.queue.ClaimRequest;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FailureTest extends RouterFixture {

    private Router hands() {
        return start(true);
    }

    /** What {@link #hands()} starts with. */
    private static RouterSettings handsSettings() {
        return RouterSettings.defaults().withHands(true).withHeartbeatInterval(HEARTBEAT)
                .withPollInterval(Duration.ofMillis(100));
    }

    @Test
    void lostWorkerFailsItsRunningTaskWithWorkerDisconnected() {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("run_shell", false));
        String id = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        w.accept(w.next(TaskDispatch.class));
        w.disconnect("socket closed");
        Task failed = await(id);
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals("Worker disconnected", failed.error().orElseThrow());
        assertFalse(router.workers().getFirst().online());
    }

    @Test
    void aBrainBackAfterAnOutageLongerThanTheLeaseLetsTheLiveWorkerFinishItsTask() {
        ManualScheduler time = new ManualScheduler(START);
        String id = runningTaskWhoseLeaseRanOut(time);
        start(shortLease(), time);
        pass(time, Duration.ofSeconds(2), () -> { });
        assertEquals(TaskStatus.RUNNING, status(id), "the lease was expired before the worker could reconnect");

        FakeWorker w = new FakeWorker("laptop");
        w.registerSilently(router, 2, FakeWorker.tool("run_shell", false));
        // Past this brain's first lease: the worker's heartbeats have renewed the task's.
        pass(time, Duration.ofSeconds(4), w::heartbeat);
        assertEquals(TaskStatus.RUNNING, status(id));
        w.complete(id, "done after all");
        Task done = await(id);
        assertEquals(TaskStatus.COMPLETED, done.status());
        assertEquals(Optional.empty(), done.error());
    }

    @Test
    void aTaskWhoseWorkerNeverComesBackFailsOneLeaseAfterTheBrainStarted() {
        ManualScheduler time = new ManualScheduler(START);
        String id = runningTaskWhoseLeaseRanOut(time);
        start(shortLease(), time);
        pass(time, Duration.ofMillis(4_900), () -> { });
        assertEquals(TaskStatus.RUNNING, status(id), "failed before a lease had passed");
        pass(time, Duration.ofMillis(300), () -> { });
        Task failed = await(id);
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals("lease of worker laptop expired", failed.error().orElseThrow());
    }

    /** A task the worker "laptop" runs, dispatched by a brain that then stayed down for longer than the lease. */
    private String runningTaskWhoseLeaseRanOut(ManualScheduler time) {
        openQueue(time.clock());
        String id = queue.enqueue(NewTask.builder("run_shell", "{}").build()).id();
        queue.claim(new ClaimRequest("laptop", Set.of("run_shell"), 1, Duration.ofMillis(1)));
        queue.start(id, "laptop", Duration.ofMillis(1));
        time.advance(Duration.ofMillis(20));
        return id;
    }

    private static final Instant START = Instant.parse("2026-11-28T12:00:00Z");

    private static RouterSettings shortLease() {
        return RouterSettings.defaults().withHands(true).withHeartbeatInterval(HEARTBEAT)
                .withPollInterval(Duration.ofMillis(100)).withLease(Duration.ofSeconds(5));
    }

    @Test
    void lostWorkersReadOnlyTaskIsRequeuedAndCompletesOnTheNextWorker() {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("read_file", true));
        String id = router.submit(TaskRequest.of("read_file", params("{}"))).task().id();
        w.accept(w.next(TaskDispatch.class));
        w.disconnect("socket closed");

        FakeWorker next = new FakeWorker("server");
        next.register(router, 2, FakeWorker.tool("read_file", true));
        TaskDispatch again = next.next(TaskDispatch.class);
        assertEquals(id, again.taskId());
        assertEquals(2, again.attempt());
        next.accept(again);
        next.complete(again, "second time lucky");
        assertEquals(TaskStatus.COMPLETED, await(id).status());
    }

    @Test
    void aClaimedButUnacceptedTaskGoesBackWithoutCountingAnAttempt() {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("run_shell", false));
        String id = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        w.next(TaskDispatch.class);
        w.disconnect("socket closed");
        FakeWorker again = new FakeWorker("laptop");
        again.register(router, 2, FakeWorker.tool("run_shell", false));
        TaskDispatch d = again.next(TaskDispatch.class);
        assertEquals(id, d.taskId());
        assertEquals(1, d.attempt());
    }

    @Test
    void silentWorkerIsDeclaredOfflineWithinTwoHeartbeats() {
        ManualScheduler time = new ManualScheduler(START);
        start(handsSettings(), time);
        FakeWorker w = new FakeWorker("laptop");
        w.registerSilently(router, 2, FakeWorker.tool("read_file", true));
        Instant start = time.now();
        for (int i = 0; i < 50 && w.closeCode == 0; i++) {
            pass(time, Duration.ofMillis(100), () -> { });
        }
        long elapsedMs = Duration.between(start, time.now()).toMillis();
        assertEquals(4001, w.closeCode);
        assertTrue(elapsedMs >= HEARTBEAT.toMillis() * 2 - 50, "not before 2 × the interval: " + elapsedMs);
        assertFalse(router.workers().getFirst().online());
    }

    @Test
    void heartbeatingWorkerStaysOnline() {
        ManualScheduler time = new ManualScheduler(START);
        start(handsSettings(), time);
        FakeWorker w = new FakeWorker("laptop");
        w.registerSilently(router, 2, FakeWorker.tool("read_file", true));
        pass(time, HEARTBEAT.multipliedBy(5), w::heartbeat);
        assertEquals(0, w.closeCode);
        assertTrue(router.workers().getFirst().online());
    }

    @Test
    void deadlineCancelsOnTheWorkerAndFailsTheTask() {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("run_shell", false));
        String id = router.submit(TaskRequest.of("run_shell", params("{}")).withTimeout(Duration.ofMillis(300)))
                .task().id();
        TaskDispatch d = w.next(TaskDispatch.class);
        assertEquals(300, d.timeoutMs());
        w.accept(d);
        w.connection.receive(new TaskProgress(id, 10, "still going"));
        TaskCancel cancel = w.next(TaskCancel.class);
        assertEquals("timed out after 300ms", cancel.reason());
        Task failed = await(id);
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals("timed out after 300ms", failed.error().orElseThrow());
        w.connection.receive(TaskResult.ended(id, ResultStatus.CANCELLED, "timed out after 300ms", 300));
        w.next(TaskResultAck.class);
        assertEquals(TaskStatus.FAILED, status(id));
    }

    @Test
    void cancelATaskInEachState() {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 1, FakeWorker.tool("run_shell", false));
        String running = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        String queued = router.submit(TaskRequest.of("run_shell", params("{}"))).task().id();
        assertEquals(TaskStatus.QUEUED, status(queued));

        assertEquals(TaskStatus.CANCELLED, router.cancel(queued, "not needed").status());
        assertEquals(TaskStatus.CANCELLED, router.cancel(running, "cancelled by user").status());
        TaskCancel cancel = w.next(TaskCancel.class);
        assertEquals(running, cancel.taskId());
        assertEquals("cancelled by user", cancel.reason());
        w.connection.receive(TaskResult.ended(running, ResultStatus.CANCELLED, "cancelled by user", 5));
        w.next(TaskResultAck.class);
        assertEquals(TaskStatus.CANCELLED, await(running).status());

        RouterException conflict = assertThrows(RouterException.class, () -> router.cancel(running, "again"));
        assertEquals(RouterException.Kind.CONFLICT, conflict.kind());
        assertEquals("task " + running + " is already cancelled; only queued or running tasks can be cancelled",
                conflict.getMessage());
        RouterException missing = assertThrows(RouterException.class, () -> router.cancel("nope", "x"));
        assertEquals(RouterException.Kind.NOT_FOUND, missing.kind());
    }

    @Test
    void aResultIsAcceptedOnceAndDuplicatesAreAckedAndIgnored() {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("read_file", true));
        String id = router.submit(TaskRequest.of("read_file", params("{}"))).task().id();
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        w.complete(d, "first");
        w.next(TaskResultAck.class);
        w.complete(d, "second");
        w.next(TaskResultAck.class);
        w.fail(d, "third");
        w.next(TaskResultAck.class);
        Task done = await(id);
        assertTrue(done.result().orElseThrow().contains("first"));
        assertEquals(TaskStatus.COMPLETED, status(id));
    }

    @Test
    void resultForAnUnknownTaskIsAcknowledged() {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("read_file", true));
        w.connection.receive(TaskResult.ended("forgotten-task", ResultStatus.FAILED, "x", 1));
        assertEquals("forgotten-task", w.next(TaskResultAck.class).taskId());
    }

    @Test
    void aWaiterForATaskAnotherBrainEndedMeanwhileIsAnsweredByTheLateResult() throws Exception {
        // No poll during the test: the answer must come from the late result, not from a look at the queue.
        start(RouterSettings.defaults().withHands(true).withHeartbeatInterval(HEARTBEAT)
                .withPollInterval(Duration.ofMinutes(1)));
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("stat", true));
        String id = router.submit(TaskRequest.of("stat", params("{}"))).task().id();
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        // Another brain on the same queue ends it (its lease ran out there, say); no notice reaches this one.
        queue.fail(id, "lease of worker laptop expired", false);
        CompletableFuture<Task> waiting = router.completion(id);
        w.complete(d, "late");
        Task ended = waiting.get(10, TimeUnit.SECONDS);
        assertEquals(TaskStatus.FAILED, ended.status());
        assertEquals("lease of worker laptop expired", ended.error().orElseThrow());
    }

    @Test
    void busyRejectionSendsTheTaskToAnotherWorker() {
        hands();
        FakeWorker busy = new FakeWorker("busy");
        busy.register(router, 4, FakeWorker.tool("stat", true));
        String id = router.submit(TaskRequest.of("stat", params("{}"))).task().id();
        TaskDispatch d = busy.next(TaskDispatch.class);
        FakeWorker idle = new FakeWorker("idle");
        idle.register(router, 4, FakeWorker.tool("stat", true));
        busy.connection.receive(new TaskRejected(d.taskId(), RejectReason.BUSY, "all slots taken"));
        TaskDispatch again = idle.next(TaskDispatch.class);
        assertEquals(id, again.taskId());
        assertEquals(1, again.attempt(), "a rejection is not an attempt");
    }

    @Test
    void unknownToolRejectionRequeuesAndBadParamsFail() throws InterruptedException {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 4, FakeWorker.tool("stat", true), FakeWorker.tool("read_file", true));
        String stat = router.submit(TaskRequest.of("stat", params("{}"))).task().id();
        w.connection.receive(new TaskRejected(w.next(TaskDispatch.class).taskId(), RejectReason.UNKNOWN_TOOL, "no"));
        assertTrue(w.quietFor(200).isEmpty(), "not sent back to the worker that lacks it");
        assertEquals(TaskStatus.QUEUED, status(stat));

        String read = router.submit(TaskRequest.of("read_file", params("{}"))).task().id();
        w.connection.receive(new TaskRejected(w.next(TaskDispatch.class).taskId(), RejectReason.BAD_PARAMS,
                "invalid params for read_file: $: required property 'path' not found"));
        Task failed = await(read);
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals("invalid params for read_file: $: required property 'path' not found", failed.error().orElseThrow());
    }

    @Test
    void aWorkersToolListIsRefreshedByWorkerToolsAfterAnUnknownToolRefusal() throws InterruptedException {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 4, FakeWorker.tool("stat", true), FakeWorker.tool("read_file", true));
        String stat = router.submit(TaskRequest.of("stat", params("{}"))).task().id();
        w.connection.receive(new TaskRejected(w.next(TaskDispatch.class).taskId(), RejectReason.UNKNOWN_TOOL, "no"));
        w.connection.receive(new WorkerTools(List.of(FakeWorker.tool("read_file", true),
                FakeWorker.tool("list_dir", true))));

        assertEquals(List.of("read_file", "list_dir"), router.workers().getFirst().tools());
        String list = router.submit(TaskRequest.of("list_dir", params("{}"))).task().id();
        assertEquals(list, w.next(TaskDispatch.class).taskId(), "a tool it added is used at once");
        assertTrue(w.quietFor(200).isEmpty(), "the refused tool is not sent back to it");
        assertEquals(TaskStatus.QUEUED, status(stat));
    }

    @Test
    void aWorkerRelistingAToolItRefusedAsUnknownIsToldAndTheToolStaysUnused() throws InterruptedException {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 4, FakeWorker.tool("stat", true));
        String stat = router.submit(TaskRequest.of("stat", params("{}"))).task().id();
        w.connection.receive(new TaskRejected(w.next(TaskDispatch.class).taskId(), RejectReason.UNKNOWN_TOOL, "no"));
        w.connection.receive(new WorkerTools(List.of(FakeWorker.tool("stat", true))));

        ErrorMessage error = w.next(ErrorMessage.class);
        assertEquals(ErrorCode.INVALID_FIELD, error.code());
        assertTrue(error.message().contains("refused as unknown_tool"), error.message());
        assertTrue(w.quietFor(300).stream().noneMatch(m -> m instanceof TaskDispatch), "no bouncing back and forth");
        assertEquals(TaskStatus.QUEUED, status(stat));
        assertEquals(List.of(), router.workers().getFirst().tools());
    }

    @Test
    void aToolThatWentAndCameBackIsUsedAgainOnTheSameConnection() throws InterruptedException {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 4, FakeWorker.tool("stat", true), FakeWorker.tool("mcp__echo", true));
        // The echo's server restarted: the dispatch crossed the worker's new list on the wire.
        String echo = router.submit(TaskRequest.of("mcp__echo", params("{}"))).task().id();
        w.connection.receive(new TaskRejected(w.next(TaskDispatch.class).taskId(), RejectReason.UNKNOWN_TOOL, "no"));
        w.connection.receive(new WorkerTools(List.of(FakeWorker.tool("stat", true))));
        w.connection.receive(new WorkerTools(List.of(FakeWorker.tool("stat", true), FakeWorker.tool("mcp__echo", true))));

        TaskDispatch again = w.next(TaskDispatch.class);
        assertEquals(echo, again.taskId(), "back on the list, the tool is used again");
        assertTrue(w.quietFor(200).stream().noneMatch(m -> m instanceof ErrorMessage), "no frame was refused");
    }

    @Test
    void aToolListWithABadSchemaIsRefusedAndTheOldListKept() {
        hands();
        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 4, FakeWorker.tool("stat", true));
        var schema = FakeWorker.JSON.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("path").put("$ref", "http://127.0.0.1:9/schema.json");
        w.connection.receive(new WorkerTools(List.of(new ToolDescriptor("stat", "", schema, "LOCAL", true, false,
                true, false))));
        assertEquals(ErrorCode.INVALID_FIELD, w.next(ErrorMessage.class).code());
        assertEquals(List.of("stat"), router.workers().getFirst().tools());
    }

    @Test
    void malformedFramesGetErrorFramesAndTheRouterKeepsServing() throws InterruptedException {
        hands();
        FakeWorker bad = new FakeWorker("bad");
        bad.register(router, 1, FakeWorker.tool("stat", true));
        bad.connection.receive("{not json");
        assertEquals(ErrorCode.INVALID_JSON, bad.next(ErrorMessage.class).code());
        bad.connection.receive("{\"type\":\"task:progress\",\"taskId\":\"t\",\"percent\":400}");
        ErrorMessage range = bad.next(ErrorMessage.class);
        assertEquals("task:progress: field 'percent' must be from 0 to 100, got 400", range.message());

        FakeWorker good = new FakeWorker("good");
        good.register(router, 1, FakeWorker.tool("read_file", true));
        router.submit(TaskRequest.of("read_file", params("{}")));
        good.next(TaskDispatch.class);
        assertEquals(0, bad.closeCode);
        for (int i = 0; i < 10; i++) {
            bad.connection.receive("[]");
        }
        assertEquals(1008, bad.awaitClose(), "more than 10 refused frames in a minute");
    }

    @Test
    void framesBeforeRegistrationAreRefused() {
        hands();
        FakeWorker w = new FakeWorker("early");
        w.connection = router.connect(w);
        w.connection.receive("{\"type\":\"task:accepted\",\"taskId\":\"t1\"}");
        ErrorMessage e = w.next(ErrorMessage.class);
        assertEquals(ErrorCode.UNEXPECTED_MESSAGE, e.code());
        assertEquals("task:accepted before worker:register; register first", e.message());
    }

    @Test
    void unsupportedProtocolVersionIsRefusedAndClosed() throws InterruptedException {
        hands();
        FakeWorker w = new FakeWorker("future");
        w.connection = router.connect(w);
        w.connection.receive(new WorkerRegister(2, "future", "future", "h", "p", List.of(), 1));
        assertEquals(ErrorCode.UNSUPPORTED_VERSION, w.next(ErrorMessage.class).code());
        assertEquals(1008, w.awaitClose());
        assertTrue(router.workers().isEmpty());
    }

    @Test
    void reconnectingWorkerReplacesItsOldConnection() throws InterruptedException {
        hands();
        FakeWorker old = new FakeWorker("laptop");
        old.register(router, 1, FakeWorker.tool("stat", true));
        // The old link died without a close the brain has seen: its ping cannot be answered.
        old.liveness = FakeWorker.Liveness.UNREACHABLE;
        FakeWorker fresh = new FakeWorker("laptop");
        WorkerAck ack = fresh.register(router, 1, FakeWorker.tool("stat", true));
        assertEquals("laptop", ack.workerId());
        assertEquals(1008, old.awaitClose());
        assertEquals(1, router.workers().size());
        assertTrue(router.workers().getFirst().online());
    }
}
