package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A hand-driven worker on a real WebSocket (the JDK's client), for frames no well-behaved worker sends. */
final class RawWorker implements WebSocket.Listener {
    /** One client for all: each has a selector thread and buffers, and tests open hundreds of sockets. */
    private static final HttpClient CLIENT = HttpClient.newHttpClient();
    final BlockingQueue<String> frames = new LinkedBlockingQueue<>();
    final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private final StringBuilder partial = new StringBuilder();
    WebSocket socket;

    static RawWorker connect(int port, String secret) {
        return open(URI.create("ws://127.0.0.1:" + port + "/ws/worker"), secret);
    }

    /** A hand-driven socket to any endpoint, e.g. the console's; {@code bearer} may be null. */
    static RawWorker open(URI uri, String bearer) {
        RawWorker worker = new RawWorker();
        var builder = CLIENT.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
        if (bearer != null) {
            builder.header("Authorization", "Bearer " + bearer);
        }
        worker.socket = builder.buildAsync(uri, worker).join();
        return worker;
    }

    void send(String frame) {
        socket.sendText(frame, true).join();
    }

    /** Sends {@code text} as frames of {@code size} characters; the last one ends the message if {@code ends}. */
    void sendInFragments(String text, int size, boolean ends) {
        for (int i = 0; i < text.length(); i += size) {
            int end = Math.min(text.length(), i + size);
            socket.sendText(text.substring(i, end), ends && end == text.length()).join();
        }
    }

    void register(String id, String tools) {
        send("{\"type\":\"worker:register\",\"protocolVersion\":1,\"workerId\":\"" + id + "\",\"name\":\"" + id
                + "\",\"capabilities\":" + tools + ",\"maxConcurrentTasks\":2}");
    }

    /** Sends a heartbeat every 200 ms until the socket closes. */
    RawWorker heartbeating() {
        Thread.ofVirtual().start(() -> {
            while (!closed.isDone()) {
                try {
                    socket.sendText("{\"type\":\"worker:heartbeat\",\"uptimeSeconds\":1,\"loadAverage\":0.1,"
                            + "\"activeTasks\":0}", true).join();
                    Thread.sleep(200);
                } catch (InterruptedException | RuntimeException e) {
                    return;
                }
            }
        });
        return this;
    }

    JsonNode next(String type) throws Exception {
        String frame = frames.poll(10, TimeUnit.SECONDS);
        if (frame == null) {
            throw new AssertionError("no frame within 10s; expected " + type);
        }
        JsonNode node = BrainFixture.JSON.readTree(frame);
        if (!type.equals(node.path("type").asText())) {
            throw new AssertionError("expected " + type + " but received " + frame);
        }
        return node;
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            frames.add(partial.toString());
            partial.setLength(0);
        }
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
        closed.complete(statusCode);
        return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
        closed.complete(-1);
    }
}
