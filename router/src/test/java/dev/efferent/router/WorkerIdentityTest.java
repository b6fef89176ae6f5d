package dev.efferent.router;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.RejectReason;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A worker acts only on what is its own: results, progress and rejections of its tasks, and its own id. */
class WorkerIdentityTest extends RouterFixture {

    private TaskDispatch runningOn(FakeWorker w) {
        router.submit(TaskRequest.of("run_shell", params("{}")).onWorker(w.id));
        TaskDispatch d = w.next(TaskDispatch.class);
        w.accept(d);
        // The acceptance is handled on the router's thread: wait until the queue says so.
        for (int i = 0; i < 500 && router.task(d.taskId()).orElseThrow().status() != TaskStatus.RUNNING; i++) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
        assertEquals(TaskStatus.RUNNING, router.task(d.taskId()).orElseThrow().status());
        return d;
    }

    /** A second router over the same queue: another brain, which knows the tasks only from the queue. */
    private Router anotherBrain() {
        return Router.start(router.settings(), queue, Stores.inMemory(),
                new ProtocolCodec(), Clock.systemUTC());
    }

    /** A router with worker "laptop" online, heartbeating, whose link no longer answers pings. */
    private FakeWorker laptopWhosePingGoesUnanswered() {
        start(true);
        FakeWorker old = new FakeWorker("laptop");
        old.register(router, 2, FakeWorker.tool("run_shell", false));
        old.liveness = FakeWorker.Liveness.SILENT;
        return old;
    }

    @Test
    void aForgedResultFromAnotherWorkerIsRefusedAndTheRealResultIsStored() {
        start(true);
        FakeWorker w1 = new FakeWorker("w1");
        w1.register(router, 2, FakeWorker.tool("run_shell", false));
        FakeWorker rogue = new FakeWorker("rogue");
        rogue.register(router, 2, FakeWorker.tool("run_shell", false));
        TaskDispatch d = runningOn(w1);

        rogue.complete(d, "forged output");
        ErrorMessage refused = rogue.next(ErrorMessage.class);
        assertEquals(ErrorCode.UNKNOWN_TASK, refused.code());
        assertEquals("task:result: task " + d.taskId() + " was not dispatched to this worker", refused.message());
        assertEquals(TaskStatus.RUNNING, router.task(d.taskId()).orElseThrow().status());

        w1.complete(d, "the real output");
        assertEquals(d.taskId(), w1.next(TaskResultAck.class).taskId());
        Task done = await(d.taskId());
        assertEquals(TaskStatus.COMPLETED, done.status());
        assertTrue(done.result().orElseThrow().contains("the real output"), done.result().orElseThrow());
    }

    @Test
    void forgedProgressAndRejectionAreRefused() {
        start(true);
        FakeWorker w1 = new FakeWorker("w1");
        w1.register(router, 2, FakeWorker.tool("run_shell", false));
        FakeWorker rogue = new FakeWorker("rogue");
        rogue.register(router, 2, FakeWorker.tool("run_shell", false));
        TaskDispatch d = runningOn(w1);

        rogue.connection.receive(new TaskProgress(d.taskId(), 99, "forged"));
        assertEquals("task:progress: task " + d.taskId() + " was not dispatched to this worker",
                rogue.next(ErrorMessage.class).message());
        rogue.connection.receive(new TaskRejected(d.taskId(), RejectReason.BAD_PARAMS, "forged"));
        assertEquals("task:rejected: task " + d.taskId() + " was not dispatched to this worker",
                rogue.next(ErrorMessage.class).message());
        assertEquals(TaskStatus.RUNNING, router.task(d.taskId()).orElseThrow().status());
    }

    @Test
    void aResultForATaskDispatchedBeforeARestartIsTakenOnlyFromTheWorkerHoldingIt() {
        start(true);
        FakeWorker w1 = new FakeWorker("w1");
        w1.register(router, 2, FakeWorker.tool("run_shell", false));
        TaskDispatch d = runningOn(w1);
        // Another brain over the same queue knows the task only from the queue: not in flight there.
        Router other = anotherBrain();
        try {
            FakeWorker rogue = new FakeWorker("rogue");
            rogue.register(other, 2, FakeWorker.tool("run_shell", false));
            rogue.complete(d, "forged output");
            assertEquals(ErrorCode.UNKNOWN_TASK, rogue.next(ErrorMessage.class).code());
            assertEquals(TaskStatus.RUNNING, router.task(d.taskId()).orElseThrow().status());
        } finally {
            other.close();
        }
    }

    @Test
    void aSecondConnectionWithTheIdOfALiveWorkerIsRefused() throws InterruptedException {
        start(true);
        FakeWorker first = new FakeWorker("laptop");
        first.register(router, 2, FakeWorker.tool("run_shell", false));
        FakeWorker impostor = new FakeWorker("laptop");
        impostor.connection = router.connect(impostor);
        impostor.connection.receive(new WorkerRegister(1, "laptop", "laptop", "elsewhere", "test", List.of(), 2));

        ErrorMessage refused = impostor.next(ErrorMessage.class);
        assertTrue(refused.message().startsWith("worker:register: worker id 'laptop' is already connected"),
                refused.message());
        assertEquals(1008, impostor.awaitClose());
        assertEquals(0, first.closeCode);
        assertTrue(router.workers().stream().anyMatch(w -> w.id().equals("laptop") && w.online()));
        TaskDispatch d = runningOn(first);
        assertEquals("run_shell", d.tool());
    }

    @Test
    void aSilentOldConnectionIsReplacedAfterThePingGoesUnanswered() throws InterruptedException {
        FakeWorker old = laptopWhosePingGoesUnanswered();

        FakeWorker back = new FakeWorker("laptop");
        back.register(router, 2, FakeWorker.tool("run_shell", false));
        assertEquals(1008, old.awaitClose());
        TaskDispatch d = runningOn(back);
        assertEquals("run_shell", d.tool());
    }

    @Test
    void twoNewcomersForADeadLinksIdAreNotBothLetIn() throws InterruptedException {
        FakeWorker old = laptopWhosePingGoesUnanswered();

        FakeWorker first = new FakeWorker("laptop");
        FakeWorker second = new FakeWorker("laptop");
        for (FakeWorker w : List.of(first, second)) {
            w.connection = router.connect(w);
            w.connection.receive(new WorkerRegister(1, "laptop", "laptop", "host", "test", List.of(), 2));
        }
        assertEquals(1008, old.awaitClose());
        Message a = first.received.poll(10, TimeUnit.SECONDS);
        Message b = second.received.poll(10, TimeUnit.SECONDS);
        long admitted = Stream.of(a, b).filter(m -> m instanceof WorkerAck).count();
        long refused = Stream.of(a, b).filter(m -> m instanceof ErrorMessage).count();
        assertEquals(1, admitted, a + " / " + b);
        assertEquals(1, refused, a + " / " + b);
        assertEquals(1, router.workers().stream().filter(w -> w.id().equals("laptop") && w.online()).count());
    }

    @Test
    void progressOfATaskThisBrainDidNotDispatchIsDroppedQuietlyFromTheWorkerHoldingIt() throws InterruptedException {
        start(true);
        FakeWorker w1 = new FakeWorker("w1");
        w1.register(router, 2, FakeWorker.tool("run_shell", false));
        TaskDispatch d = runningOn(w1);
        Router other = anotherBrain();
        try {
            FakeWorker again = new FakeWorker("w1");
            again.register(other, 2, FakeWorker.tool("run_shell", false));
            again.connection.receive(new TaskProgress(d.taskId(), 50, "half way"));
            assertTrue(again.quietFor(300).stream().noneMatch(m -> m instanceof ErrorMessage),
                    "no error for the worker holding the task");
        } finally {
            other.close();
        }
    }

    @Test
    void paramsAreCheckedAgainstTheSchemaOfTheWorkerThatWillRunTheCall() throws Exception {
        start(true);
        FakeWorker strict = new FakeWorker("strict");
        ToolDescriptor tool = shell(STRICT_SHELL);
        strict.register(router, 2, tool);
        String id = router.submit(TaskRequest.of("run_shell", params("{\"cmd\":\"ls\"}"))).task().id();
        Task failed = await(id);
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals("invalid params for run_shell on strict: $: required property 'command' not found",
                failed.error().orElseThrow());
        assertTrue(strict.quietFor(200).stream().noneMatch(m -> m instanceof TaskDispatch), "never sent");
    }

    @Test
    void paramsCheckedOnAdmissionAgainstTheWorkersOwnCopyAreNotCheckedAgainAtDispatch() throws Exception {
        start(true);
        FakeWorker strict = new FakeWorker("strict");
        ToolDescriptor tool = shell(STRICT_SHELL);
        strict.register(router, 2, tool);

        // Its caller (the front door) checked the params against this very copy: the router does not check again, so
        // these, which that copy would refuse, reach the worker (whose own check is the one left).
        String once = router.submit(TaskRequest.of("run_shell", params("{\"cmd\":\"ls\"}")).checkedAgainst(tool))
                .task().id();
        assertEquals(once, strict.next(TaskDispatch.class).taskId());

        // Checked against another copy of the tool (a looser one): checked again against the worker's, and refused.
        ToolDescriptor loose = shell("{\"type\":\"object\"}");
        String twice = router.submit(TaskRequest.of("run_shell", params("{\"cmd\":\"ls\"}")).checkedAgainst(loose))
                .task().id();
        Task failed = await(twice);
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals("invalid params for run_shell on strict: $: required property 'command' not found",
                failed.error().orElseThrow());
    }

    /** A schema of run_shell that requires a command. */
    private static final String STRICT_SHELL = "{\"type\":\"object\",\"properties\":{\"command\":"
            + "{\"type\":\"string\"}},\"required\":[\"command\"]}";

    /** A worker's run_shell with {@code schema}. */
    private static ToolDescriptor shell(String schema) throws Exception {
        return new ToolDescriptor("run_shell", "shell",
                (ObjectNode) FakeWorker.JSON.readTree(schema), "LOCAL", false,
                false, false, false);
    }
}
