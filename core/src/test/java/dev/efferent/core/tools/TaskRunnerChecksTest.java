package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.RejectReason;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskAccepted;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResult;
import dev.efferent.tools.spi.AllowedRoots;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A task's params are checked once where it runs: by a worker's runner, or by the router for the brain's own. */
class TaskRunnerChecksTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@code echo} allows no other properties: its schema refuses these. */
    private static final String EXTRA = "{\"text\":\"hi\",\"extra\":1}";
    @TempDir
    Path root;
    private LocalToolExecutor executor;
    private final BlockingQueue<Message> replies = new LinkedBlockingQueue<>();

    @BeforeEach
    void setUp() {
        executor = new LocalToolExecutor(ToolCatalog.of(List.of(new FakeToolkit())), AllowedRoots.of(List.of(root)));
    }

    @AfterEach
    void tearDown() {
        executor.close();
    }

    @Test
    void aWorkersRunnerRefusesParamsItsToolsSchemaRefusesBeforeAcceptingThem() throws Exception {
        TaskRunner worker = new TaskRunner(executor, 2, replies::add);

        worker.handle(dispatch("w1", "echo", EXTRA));

        TaskRejected rejected = assertInstanceOf(TaskRejected.class, next());
        assertEquals(RejectReason.BAD_PARAMS, rejected.reason());
        assertTrue(rejected.message().startsWith("invalid params for echo: "), rejected.message());
    }

    @Test
    void theBrainsOwnRunnerLeavesTheCheckToTheRouterForTheCopyTheRouterChecked() throws Exception {
        TaskRunner inProcess = TaskRunner.inProcess(executor, 2, replies::add, entry -> true);

        // The router checked (or, here, did not) against this very copy of the tool: no second check.
        inProcess.handle(dispatch("b1", "echo", EXTRA));
        assertEquals(new TaskAccepted("b1"), next());
        TaskResult result = assertInstanceOf(TaskResult.class, next());
        assertEquals(ResultStatus.COMPLETED, result.status());

        inProcess.handle(dispatch("b2", "nope", "{}"));
        assertEquals(RejectReason.UNKNOWN_TOOL, assertInstanceOf(TaskRejected.class, next()).reason());
    }

    @Test
    void theBrainsOwnRunnerChecksACallToAToolThatChangedSinceTheRoutersCheck() throws Exception {
        TaskRunner inProcess = TaskRunner.inProcess(executor, 2, replies::add, entry -> false);

        inProcess.handle(dispatch("b1", "echo", EXTRA));

        TaskRejected rejected = assertInstanceOf(TaskRejected.class, next());
        assertEquals(RejectReason.BAD_PARAMS, rejected.reason());
        assertTrue(rejected.message().startsWith("invalid params for echo: "), rejected.message());
    }

    private static TaskDispatch dispatch(String taskId, String tool, String params) throws Exception {
        return new TaskDispatch(taskId, tool, (ObjectNode) JSON.readTree(params), 5, 10_000, 1, "");
    }

    private Message next() throws InterruptedException {
        Message m = replies.poll(10, TimeUnit.SECONDS);
        assertTrue(m != null, "no reply within 10 s");
        return m;
    }
}
