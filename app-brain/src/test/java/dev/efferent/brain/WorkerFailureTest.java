package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What happens when secrets are wrong, sockets die, workers go silent, brains restart or frames are bad. */
class WorkerFailureTest extends BrainFixture {
    private static final String READ_FILE = "[{\"name\":\"read_file\",\"inputSchema\":{\"type\":\"object\"},"
            + "\"placement\":\"LOCAL\",\"annotations\":{\"readOnlyHint\":true}}]";

    @Test
    void wrongOrMissingSecretIsRefusedWith401AndNoRegistration() throws Exception {
        startBrain(true, Map.of());
        List<String> logged = new CopyOnWriteArrayList<>();
        Logger guardLog = Logger.getLogger(RequestGuard.class.getName());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(new SimpleFormatter().formatMessage(r));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        guardLog.addHandler(capture);
        try {
            for (String secret : new String[]{"wrong-secret", null}) {
                CompletionException e = assertThrows(CompletionException.class,
                        () -> RawWorker.connect(brain.port(), secret));
                WebSocketHandshakeException handshake = (WebSocketHandshakeException) e.getCause();
                assertEquals(401, handshake.getResponse().statusCode());
            }
        } finally {
            guardLog.removeHandler(capture);
        }
        // One line for both (rate-limited), naming where the attempt came from.
        assertEquals(1, logged.size(), logged.toString());
        assertTrue(logged.getFirst().matches("Refused a worker connection from 127\\.0\\.0\\.1:\\d+: missing, wrong or "
                + "revoked worker secret or token"), logged.toString());
        assertEquals(401, request("GET", "/ws/worker", null, null).statusCode());
        assertEquals(426, request("GET", "/ws/worker", null, SECRET).statusCode(), "the right secret, no upgrade");
        Process bad = startWorker("intruder", dir.resolve("intruder"), Map.of("EFFERENT_WORKER_SECRET", "nope"),
                "--max-reconnect-attempts", "1");
        assertTrue(bad.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, bad.exitValue());
        assertTrue(workerLog("intruder").contains("refused the worker secret (401 Unauthorized)"), workerLog("intruder"));
        assertEquals(1, call("GET", "/api/v1/workers", null, 200).path("workers").size(), "only the brain itself");
    }

    @Test
    void socketDyingMidTaskFailsItWithWorkerDisconnected() throws Exception {
        startBrain(true, Map.of());
        Process worker = startWorker("laptop", dir.resolve("laptop-root"), Map.of());
        awaitWorker("laptop", true, 30);
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":\"sleep 30\"}}").path("id").asText();
        awaitStatus(id, "running", 30);
        long killedAt = System.nanoTime();
        worker.destroyForcibly();
        JsonNode failed = awaitStatus(id, "failed", 10);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        assertEquals("Worker disconnected", failed.path("error").asText());
        assertTrue(ms <= 2 * HEARTBEAT.toMillis() + 500, "failed after " + ms + " ms");
        awaitWorker("laptop", false, 5);
    }

    @Test
    void readOnlyTaskOfADeadSocketIsRequeuedAndCompletesOnTheNextWorker() throws Exception {
        startBrain(true, Map.of());
        RawWorker doomed = RawWorker.connect(brain.port(), SECRET);
        doomed.register("doomed", READ_FILE);
        doomed.next("worker:ack");
        Path root = dir.resolve("next-root");
        Files.createDirectories(root);
        Files.writeString(root.resolve("data.txt"), "still here\n");
        String id = submit("{\"tool\":\"read_file\",\"params\":{\"path\":\"data.txt\"}}").path("id").asText();
        JsonNode dispatch = doomed.next("task:dispatch");
        doomed.send("{\"type\":\"task:accepted\",\"taskId\":\"" + dispatch.path("taskId").asText() + "\"}");
        awaitStatus(id, "running", 10);
        doomed.socket.abort();

        startWorker("next", root, Map.of());
        JsonNode done = awaitStatus(id, "completed", 30);
        assertEquals(2, done.path("attempt").asInt());
        assertEquals("next", done.path("runningOn").asText());
        assertEquals("still here\n", done.path("output").asText());
    }

    @Test
    void workerThatStopsHeartbeatingIsDeclaredOffline() throws Exception {
        startBrain(true, Map.of());
        RawWorker silent = RawWorker.connect(brain.port(), SECRET);
        silent.register("silent", READ_FILE);
        JsonNode ack = silent.next("worker:ack");
        assertEquals(HEARTBEAT.toMillis(), ack.path("heartbeatIntervalMs").asLong());
        awaitWorker("silent", true, 5);
        awaitWorker("silent", false, 5);
        assertEquals(4001, silent.closed.get(5, TimeUnit.SECONDS));
    }

    @Test
    void cancellingARunningShellKillsItsProcess() throws Exception {
        startBrain(true, Map.of());
        Path root = dir.resolve("laptop-root");
        startWorker("laptop", root, Map.of());
        awaitWorker("laptop", true, 30);
        // Found by its arguments: under the shell sandbox the command sees its own pid namespace, so $! means
        // nothing out here.
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":\"sleep 987.5 & wait\","
                + "\"timeout\":300}}").path("id").asText();
        awaitStatus(id, "running", 30);
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (sleepers().isEmpty() && System.nanoTime() < end) {
            Thread.sleep(25);
        }
        assertEquals(1, sleepers().size(), "the command's sleep is running");

        JsonNode cancelled = call("POST", "/api/v1/tasks/" + id + "/cancel", "{\"reason\":\"changed my mind\"}", 200);
        assertEquals("cancelled", cancelled.path("status").asText());
        assertEquals("changed my mind", cancelled.path("error").asText());
        end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!sleepers().isEmpty() && System.nanoTime() < end) {
            Thread.sleep(25);
        }
        assertEquals(List.of(), sleepers(), "the sleep survived");
        assertEquals("cancelled", task(id).path("status").asText());
    }

    private static List<ProcessHandle> sleepers() {
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().arguments().map(a -> Arrays.asList(a).contains("987.5")).orElse(false))
                .filter(p -> p.info().command().map(c -> c.endsWith("sleep")).orElse(false))
                .toList();
    }

    @Test
    void workerReconnectsAfterABrainRestartAndDeliversItsResult() throws Exception {
        startBrain(true, Map.of());
        int port = brain.port();
        Path root = dir.resolve("laptop-root");
        startWorker("laptop", root, Map.of());
        awaitWorker("laptop", true, 30);
        String id = submit("{\"tool\":\"run_shell\",\"params\":{\"command\":\"sleep 2; echo done > finished.txt\"}}")
                .path("id").asText();
        awaitStatus(id, "running", 30);
        brain.close();
        brain = null;
        Path journal = dir.resolve("state-laptop/journal/log");
        String journalled = "\"result\":{\"type\":\"task:result\",\"taskId\":\"" + id + "\"";
        // Waits for the command's end (it sleeps 2 s) by its journalled result, not for a fixed time.
        long ran = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!(Files.exists(journal) && Files.readString(journal).contains(journalled)) && System.nanoTime() < ran) {
            Thread.sleep(50);
        }
        assertTrue(Files.exists(root.resolve("finished.txt")), "the task ran on while the brain was away");
        assertTrue(Files.readString(journal).contains(journalled),
                "the result waits in the journal:\n" + Files.readString(journal));
        assertTrue(!Files.readString(journal).contains("{\"ack\":\"" + id + "\"}"), "not acknowledged yet:\n"
                + Files.readString(journal));

        startBrain(true, port, Map.of());
        awaitWorker("laptop", true, 30);
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String acknowledged = "{\"ack\":\"" + id + "\"}";
        while (!Files.readString(journal).contains(acknowledged) && System.nanoTime() < end) {
            Thread.sleep(100);
        }
        assertTrue(Files.readString(journal).contains(acknowledged), "the new brain acknowledged the journalled result:\n"
                + Files.readString(journal));
        assertEquals(404, request("GET", "/api/v1/tasks/" + id, null, TOKEN).statusCode(),
                "the in-memory queue forgot the task; the result was logged and acknowledged");
        assertTrue(workerLog("laptop").contains("Sending 1 results the brain has not acknowledged yet"),
                workerLog("laptop"));
    }

    @Test
    void malformedAndOversizeFramesGetErrorFramesAndOthersAreStillServed() throws Exception {
        startBrain(true, Map.of("protocol.max-frame-bytes", "32768"));
        RawWorker bad = RawWorker.connect(brain.port(), SECRET);
        bad.register("bad", READ_FILE);
        bad.next("worker:ack");
        bad.send("{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":\"lots\"}");
        JsonNode mistyped = bad.next("error");
        assertEquals("invalid_field", mistyped.path("code").asText());
        assertEquals("task:progress: field 'percent' must be an integer, got a string", mistyped.path("message").asText());
        // Refused at the first fragment over the limit, before the message ends; the rest of it is skipped.
        String big = "{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":1,\"message\":\"" + "x".repeat(80_000) + "\"}";
        bad.sendInFragments(big.substring(0, 40_000), 8_000, false);
        JsonNode tooBig = bad.next("error");
        assertEquals("frame_too_large", tooBig.path("code").asText());
        assertEquals("a message in fragments of 40000 characters so far (at least as many bytes) exceeds the maximum "
                + "of 32768 bytes; the rest of it is skipped", tooBig.path("message").asText());
        bad.sendInFragments(big.substring(40_000), 8_000, true);

        bad.send("{\"type\":\"worker:heartbeat\",\"uptimeSeconds\":1,\"loadAverage\":0.5,\"activeTasks\":0}");
        awaitWorker("bad", true, 5);
        assertEquals(Optional.empty(), Optional.ofNullable(bad.closed.getNow(null)), "a bad frame is not fatal");

        startWorker("good", dir.resolve("good-root"), Map.of());
        awaitWorker("good", true, 30);
        JsonNode done = call("POST", "/api/v1/tasks?wait=30",
                "{\"tool\":\"stat\",\"params\":{\"path\":\".\"},\"worker\":\"good\"}", 200);
        assertEquals("completed", done.path("status").asText());
    }

    @Test
    void aFrameWhoseHeaderAnnouncesMoreThanTheLimitIsRefusedUnread() throws Exception {
        startBrain(true, Map.of("protocol.max-frame-bytes", "32768"));
        try (Socket socket = new Socket("127.0.0.1", brain.port())) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(("GET /ws/worker HTTP/1.1\r\nHost: 127.0.0.1:" + brain.port() + "\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Authorization: Bearer " + SECRET + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                head.append((char) in.read());
            }
            assertTrue(head.toString().startsWith("HTTP/1.1 101"), head.toString());
            // A masked text frame announcing 2 GiB, of which not one byte follows: nothing waits for it.
            ByteBuffer header = ByteBuffer.allocate(14).put((byte) 0x81).put((byte) (0x80 | 127))
                    .putLong(1L << 31).putInt(0x11223344);
            out.write(header.array());
            out.flush();

            int first = in.read();
            assertEquals(0x88, first, "a close frame, at once");
            int length = in.read() & 0x7f;
            byte[] payload = in.readNBytes(length);
            assertEquals(1009, ((payload[0] & 0xff) << 8) | (payload[1] & 0xff), "1009: message too big");
        }
        assertEquals(200, request("GET", "/observe/health/live", null, null).statusCode());
    }

    @Test
    void fragmentsWithoutEndAfterARefusalCloseTheLink() throws Exception {
        startBrain(true, Map.of("protocol.max-frame-bytes", "32768"));
        RawWorker bad = RawWorker.connect(brain.port(), SECRET);
        bad.register("bad", READ_FILE);
        bad.next("worker:ack");
        String chunk = "x".repeat(8_000);
        for (int i = 0; i < 20 && !bad.closed.isDone(); i++) {
            try {
                bad.sendInFragments(chunk, 8_000, false);
            } catch (CompletionException e) {
                break;
            }
        }
        assertEquals("frame_too_large", bad.next("error").path("code").asText());
        assertEquals(1009, bad.closed.get(10, TimeUnit.SECONDS));
    }
}
