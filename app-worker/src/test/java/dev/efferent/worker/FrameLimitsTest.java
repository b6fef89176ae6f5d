package dev.efferent.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.WorkerAck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Frames over a limit, either side's: the link stays, and nothing loops. */
@Timeout(90)
class FrameLimitsTest {
    private static final ProtocolCodec CODEC = new ProtocolCodec();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void aResultOverTheBrainsLimitIsReportedAsAFailureThatSaysSo() throws Exception {
        try (FakeBrain brain = new FakeBrain(true);
             WorkerProcess ignored = WorkerProcess.start(dir, "laptop", brain.url(), dir.resolve("state"),
                     Map.of("EFFERENT_TOOLS_SHELL_SANDBOX", "none"))) {
            FakeBrain.Link link = brain.nextLink(WAIT);
            link.next("worker:register", WAIT);
            link.send(CODEC.encode(new WorkerAck("w1", 0, 60_000, 2048)));
            link.send(CODEC.encode(new TaskDispatch("big", "run_shell", JSON.createObjectNode()
                    .put("command", "head -c 5000 /dev/zero | tr '\\\\0' x"), 5, 60_000, 1)));
            link.next("task:accepted", WAIT);
            String result = link.next("task:result", WAIT);
            assertTrue(result.contains("\"status\":\"failed\"") && result.contains("the result is too large to send")
                    && result.contains("exceeds the brain's maximum of 2048 bytes"), result);
            assertTrue(result.length() < 2048, result);
        }
    }

    @Test
    void aMessageOverTheWorkersLimitIsRefusedAndTheLinkStays() throws Exception {
        try (FakeBrain brain = new FakeBrain(true);
             WorkerProcess worker = WorkerProcess.start(dir, "laptop", brain.url(), dir.resolve("state"),
                     Map.of("EFFERENT_TOOLS_SHELL_SANDBOX", "none", "EFFERENT_PROTOCOL_MAX__FRAME__BYTES", "16384"))) {
            FakeBrain.Link link = brain.nextLink(WAIT);
            link.next("worker:register", WAIT);
            link.send(CODEC.encode(new WorkerAck("w1", 0, 60_000)));
            link.send(CODEC.encode(new TaskDispatch("huge", "run_shell", JSON.createObjectNode()
                    .put("command", "echo " + "y".repeat(20_000)), 5, 60_000, 1)));
            String error = link.next("error", WAIT);
            assertTrue(error.contains("frame_too_large") && error.contains("this worker's maximum of 16384 bytes"), error);

            link.send(CODEC.encode(new TaskDispatch("small", "run_shell", JSON.createObjectNode()
                    .put("command", "echo ok"), 5, 60_000, 1)));
            assertTrue(link.next("task:accepted", WAIT).contains("small"));
            assertTrue(worker.awaitLog("Give brain and workers the same protocol.max-frame-bytes", WAIT)
                    .contains("skipped"));
        }
    }
}
