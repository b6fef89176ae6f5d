package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker that stops reading (its TCP window fills up) must not hold up the router: frames to it wait in its
 * own outbox while every other worker gets its tasks as usual.
 */
class SlowReaderTest extends BrainFixture {
    private static final String TOOLS = "[{\"name\":\"slow_tool\",\"inputSchema\":{\"type\":\"object\"},"
            + "\"placement\":\"LOCAL\"}]";

    /** Reads the first frames it is asked for, then no more: the JDK client stops reading the socket. */
    static final class Deaf implements WebSocket.Listener {
        @Override
        public void onOpen(WebSocket ws) {
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            return null;
        }
    }

    @Test
    void aWorkerThatStopsReadingDelaysNoOtherWorker() throws Exception {
        startBrain(true, Map.of("hands.heartbeat-interval", "60s"));
        WebSocket deaf = HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", "Bearer " + SECRET)
                .buildAsync(URI.create("ws://127.0.0.1:" + brain.port() + "/ws/worker"), new Deaf()).join();
        deaf.sendText("{\"type\":\"worker:register\",\"protocolVersion\":1,\"workerId\":\"deaf\",\"name\":\"deaf\","
                + "\"capabilities\":" + TOOLS + ",\"maxConcurrentTasks\":64}", true).join();
        awaitWorker("deaf", true, 10);
        // About 30 MB of dispatches: far more than the socket buffers hold.
        String big = "x".repeat(500_000);
        for (int i = 0; i < 60; i++) {
            submit("{\"tool\":\"slow_tool\",\"params\":{\"pad\":\"" + big + "\"},\"worker\":\"deaf\"}");
        }

        Path root = dir.resolve("good-root");
        startWorker("good", root, Map.of());
        awaitWorker("good", true, 30);
        Files.writeString(root.resolve("note.txt"), "still served\n");
        long start = System.nanoTime();
        JsonNode done = call("POST", "/api/v1/tasks?wait=20", "{\"tool\":\"read_file\",\"params\":{\"path\":"
                + "\"note.txt\"},\"worker\":\"good\"}", 200);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals("still served\n", done.path("output").asText());
        System.out.println("task on another worker while one stopped reading: " + ms + " ms");
        assertTrue(ms < 10_000, ms + " ms");
        deaf.abort();
    }
}
