package dev.efferent.router;

import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.ToolCatalog;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.Placement;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;
import dev.efferent.tools.spi.Toolkit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoutingTest extends RouterFixture {
    @TempDir
    Path root;

    private LocalToolExecutor localTools() {
        Tool echo = tool("echo", Placement.LOCAL, (p, c) -> ToolResult.text("echo " + p.string("text")));
        Tool weather = tool("weather", Placement.CLOUD, (p, c) -> ToolResult.text("sunny"));
        Toolkit kit = new Toolkit() {
            @Override
            public String name() {
                return "test";
            }

            @Override
            public List<Tool> tools() {
                return List.of(echo, weather);
            }
        };
        return new LocalToolExecutor(ToolCatalog.of(List.of(kit)), AllowedRoots.of(List.of(root)));
    }

    private static Tool tool(String name, Placement placement,
                             BiFunction<ToolParams, ToolContext, ToolResult> body) {
        return Tool.of(new ToolSpec(name, name, "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}",
                placement, ToolHints.READ_ONLY), body);
    }

    @Test
    void singleMachineModeRunsToolsInProcess() {
        start(false, localTools());
        Submission s = router.submit(TaskRequest.of("echo", params("{\"text\":\"hi\"}")));
        assertFalse(s.offline());
        Task done = await(s.task().id());
        assertEquals(TaskStatus.COMPLETED, done.status());
        assertTrue(done.result().orElseThrow().contains("echo hi"), done.result().orElseThrow());
        assertEquals(List.of("brain"), router.workers().stream().map(WorkerInfo::name).toList());
        assertEquals(0, router.workersOnline(), "the in-process worker is not a remote worker");
    }

    @Test
    void theBrainFollowsItsOwnToolkitWhenItsToolsComeAndGo() throws InterruptedException {
        AtomicBoolean up = new AtomicBoolean(true);
        List<Runnable> listeners = new CopyOnWriteArrayList<>();
        Tool flaky = new Tool() {
            @Override
            public ToolSpec spec() {
                return new ToolSpec("flaky", "flaky", "{\"type\":\"object\"}", Placement.CLOUD, ToolHints.READ_ONLY);
            }

            @Override
            public ToolResult call(ToolParams params, ToolContext context) {
                return ToolResult.text("here");
            }

            @Override
            public boolean available() {
                return up.get();
            }
        };
        Toolkit kit = new Toolkit() {
            @Override
            public String name() {
                return "flaky";
            }

            @Override
            public List<Tool> tools() {
                return List.of(flaky);
            }

            @Override
            public void onChange(Runnable changed) {
                listeners.add(changed);
            }
        };
        start(false, new LocalToolExecutor(ToolCatalog.of(List.of(kit)), AllowedRoots.of(List.of(root))));
        assertEquals(TaskStatus.COMPLETED, await(router.submit(TaskRequest.of("flaky", params("{}"))).task().id())
                .status());

        up.set(false);
        listeners.forEach(Runnable::run);
        awaitKnown("flaky", false);
        RouterException gone = assertThrows(RouterException.class,
                () -> router.submit(TaskRequest.of("flaky", params("{}"))));
        assertTrue(gone.getMessage().startsWith("unknown tool 'flaky'"), gone.getMessage());

        up.set(true);
        listeners.forEach(Runnable::run);
        awaitKnown("flaky", true);
        assertEquals(TaskStatus.COMPLETED, await(router.submit(TaskRequest.of("flaky", params("{}"))).task().id())
                .status());
    }

    private void awaitKnown(String tool, boolean known) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (router.tools().stream().anyMatch(t -> t.descriptor().name().equals(tool)) != known) {
            assertTrue(System.nanoTime() < end, tool + (known ? " never came back" : " was never dropped"));
            Thread.sleep(20);
        }
    }

    @Test
    void singleMachineModeRefusesInvalidParamsUpFront() {
        start(false, localTools());
        RouterException e = assertThrows(RouterException.class,
                () -> router.submit(TaskRequest.of("echo", params("{\"text\":5}"))));
        assertEquals(RouterException.Kind.BAD_REQUEST, e.kind());
        assertTrue(e.getMessage().startsWith("invalid params for echo: $.text"), e.getMessage());
    }

    @Test
    void cloudToolsStayInTheBrainWithHandsEnabled() {
        start(true, localTools());
        Task weather = await(router.submit(TaskRequest.of("weather", params("{}"))).task().id());
        assertEquals(TaskStatus.COMPLETED, weather.status());
        Submission echo = router.submit(TaskRequest.of("echo", params("{\"text\":\"x\"}")));
        assertTrue(echo.offline(), "a LOCAL tool waits for a worker");
        // The sentence for it ("Your machine is offline. I've queued this task (…).") is the conversations module's
        // (WordingTest); the router reports the fact.
        assertEquals(Submission.Outcome.QUEUED_OFFLINE, echo.outcome());
    }

    @Test
    void aHybridToolRunsOnAWorkerThatHasItElseInTheBrain() throws InterruptedException {
        start(new RouterSettings(true, HEARTBEAT, 2, Duration.ofMinutes(1), 3, Duration.ofSeconds(30),
                Duration.ofMillis(100), Map.of("echo", Placement.HYBRID), Duration.ofDays(7),
                Duration.ofSeconds(3), Duration.ofDays(7)), localTools());
        Task inBrain = await(router.submit(TaskRequest.of("echo", params("{\"text\":\"here\"}"))).task().id());
        assertEquals(TaskStatus.COMPLETED, inBrain.status(), "no worker has it: the brain runs it");

        FakeWorker w = new FakeWorker("laptop");
        w.register(router, 2, FakeWorker.tool("echo", true));
        String id = router.submit(TaskRequest.of("echo", params("{\"text\":\"there\"}"))).task().id();
        TaskDispatch d = w.next(TaskDispatch.class);
        assertEquals(id, d.taskId(), "a worker that has it is preferred");
        w.accept(d);
        w.complete(d, "echo there, from the laptop");
        assertTrue(await(id).result().orElseThrow().contains("from the laptop"));
    }

    @Test
    void placementOverrideFromConfigurationWins() {
        RouterSettings settings = new RouterSettings(true, HEARTBEAT, 2, Duration.ofMinutes(1), 3,
                Duration.ofSeconds(30), Duration.ofMillis(200), Map.of("echo", Placement.CLOUD),
                Duration.ofDays(7), Duration.ofSeconds(3), Duration.ofDays(7));
        start(settings, localTools());
        Task echo = await(router.submit(TaskRequest.of("echo", params("{\"text\":\"x\"}"))).task().id());
        assertEquals(TaskStatus.COMPLETED, echo.status());
        assertEquals("CLOUD", router.tools().stream().filter(t -> t.descriptor().name().equals("echo")).findFirst()
                .orElseThrow().placement().name());
    }

    @Test
    void dispatchToAWorkerAndBack() {
        start(true);
        FakeWorker w = new FakeWorker("laptop");
        WorkerAck ack = w.register(router, 2, FakeWorker.tool("read_file", true));
        assertEquals(0, ack.queuedTasks());
        assertEquals(HEARTBEAT.toMillis(), ack.heartbeatIntervalMs());
        List<String> progress = new CopyOnWriteArrayList<>();
        router.addListener(new RouterListener() {
            @Override
            public void progress(Task task, int percent, String message) {
                progress.add(percent + " " + message);
            }
        });

        Submission s = router.submit(TaskRequest.of("read_file", params("{\"path\":\"a\"}")));
        // Worded "Running read_file on laptop (…)." by the conversations module (WordingTest).
        assertEquals(Submission.Outcome.RUNNING, s.outcome());
        assertEquals(Optional.of("laptop"), s.worker());
        TaskDispatch d = w.next(TaskDispatch.class);
        assertEquals(s.task().id(), d.taskId());
        assertEquals("{\"path\":\"a\"}", d.params().toString());
        assertEquals(1, d.attempt());
        w.accept(d);
        w.connection.receive(new TaskProgress(d.taskId(), 50, "half"));
        w.complete(d, "contents");
        assertEquals(d.taskId(), w.next(TaskResultAck.class).taskId());
        Task done = await(d.taskId());
        assertEquals(TaskStatus.COMPLETED, done.status());
        assertTrue(done.result().orElseThrow().contains("contents"));
        assertEquals(List.of("50 half"), progress);
        assertEquals(List.of("laptop"), router.tools().getFirst().workers());
    }

    @Test
    void queuedWhileOfflineThenDrainedOnConnectWithinConcurrency() throws InterruptedException {
        start(true);
        FakeWorker first = new FakeWorker("laptop");
        first.register(router, 1, FakeWorker.tool("run_shell", false));
        first.disconnect("test");
        Submission s = router.submit(TaskRequest.of("run_shell", params("{}")));
        assertTrue(s.offline());
        assertEquals(TaskStatus.QUEUED, s.task().status());
        for (int i = 0; i < 4; i++) {
            router.submit(TaskRequest.of("run_shell", params("{}")));
        }

        FakeWorker w = new FakeWorker("laptop");
        WorkerAck ack = w.register(router, 2, FakeWorker.tool("run_shell", false));
        assertEquals(5, ack.queuedTasks());
        TaskDispatch a = w.next(TaskDispatch.class);
        TaskDispatch b = w.next(TaskDispatch.class);
        assertEquals(s.task().id(), a.taskId(), "oldest first");
        assertTrue(w.quietFor(200).isEmpty(), "no more than its 2 slots");
        w.accept(a);
        w.complete(a, "done");
        w.next(TaskResultAck.class);
        TaskDispatch c = w.next(TaskDispatch.class);
        assertFalse(List.of(a.taskId(), b.taskId()).contains(c.taskId()));
        assertEquals(TaskStatus.COMPLETED, await(a.taskId()).status());
    }

    @Test
    void eachTaskGoesToAWorkerThatHasTheTool() {
        start(true);
        FakeWorker files = new FakeWorker("files");
        FakeWorker browser = new FakeWorker("browser");
        files.register(router, 4, FakeWorker.tool("read_file", true));
        browser.register(router, 4, FakeWorker.tool("browser_navigate", false));
        router.submit(TaskRequest.of("browser_navigate", params("{}")));
        router.submit(TaskRequest.of("read_file", params("{}")));
        assertEquals("browser_navigate", browser.next(TaskDispatch.class).tool());
        assertEquals("read_file", files.next(TaskDispatch.class).tool());
    }

    @Test
    void namedTargetWinsThenActiveWorkerThenLeastLoaded() throws InterruptedException {
        start(true);
        FakeWorker a = new FakeWorker("a");
        FakeWorker b = new FakeWorker("b");
        a.register(router, 4, FakeWorker.tool("stat", true));
        b.register(router, 4, FakeWorker.tool("stat", true));

        router.submit(TaskRequest.of("stat", params("{}")).onWorker("b"));
        b.next(TaskDispatch.class);
        router.submit(TaskRequest.of("stat", params("{}")).onWorker("b"));
        b.next(TaskDispatch.class);
        assertTrue(a.quietFor(100).isEmpty());

        router.submit(TaskRequest.of("stat", params("{}")));
        a.next(TaskDispatch.class);

        router.setActiveWorker("chat:1", "b");
        router.submit(TaskRequest.of("stat", params("{}")).inSession("chat:1"));
        b.next(TaskDispatch.class);
        assertEquals(Optional.of("b"), router.activeWorker("chat:1"));
    }

    @Test
    void targetOfflineMeansQueuedForIt() {
        start(true);
        FakeWorker a = new FakeWorker("a");
        FakeWorker b = new FakeWorker("b");
        a.register(router, 4, FakeWorker.tool("stat", true));
        b.register(router, 4, FakeWorker.tool("stat", true));
        b.disconnect("gone");
        Submission s = router.submit(TaskRequest.of("stat", params("{}")).onWorker("b"));
        assertTrue(s.offline());
        assertEquals("b", s.task().targetWorker().orElseThrow());
        FakeWorker back = new FakeWorker("b");
        assertEquals(1, back.register(router, 4, FakeWorker.tool("stat", true)).queuedTasks());
        assertEquals(s.task().id(), back.next(TaskDispatch.class).taskId());
    }

    @Test
    void unknownToolsAndWorkersAreBadRequests() {
        start(true);
        new FakeWorker("a").register(router, 1, FakeWorker.tool("stat", true));
        RouterException tool = assertThrows(RouterException.class, () -> router.submit(TaskRequest.of("nope", params("{}"))));
        assertEquals("unknown tool 'nope'; known tools: [stat]", tool.getMessage());
        RouterException worker = assertThrows(RouterException.class,
                () -> router.submit(TaskRequest.of("stat", params("{}")).onWorker("zz")));
        assertEquals("no worker named 'zz'; known workers: [a]", worker.getMessage());
        RouterException active = assertThrows(RouterException.class, () -> router.setActiveWorker("c", "zz"));
        assertEquals(RouterException.Kind.BAD_REQUEST, active.kind());
    }
}
