package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** The web console's WebSocket as a program uses it: bearer token on the upgrade, JSON frames. */
final class ConsoleSocket implements AutoCloseable {
    private final BlockingQueue<JsonNode> frames = new LinkedBlockingQueue<>();
    private final WebSocket socket;

    private ConsoleSocket(SystemFixture.Launched brain, String conversation) throws Exception {
        StringBuilder partial = new StringBuilder();
        socket = HttpClient.newHttpClient().newWebSocketBuilder()
                .header("Authorization", "Bearer " + SystemFixture.TOKEN)
                .buildAsync(URI.create("ws://127.0.0.1:" + brain.port() + "/ws/console?conversation=" + conversation),
                        new WebSocket.Listener() {
                            @Override
                            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                                partial.append(data);
                                if (last) {
                                    try {
                                        frames.add(SystemFixture.JSON.readTree(partial.toString()));
                                    } catch (IOException e) {
                                        throw new AssertionError("the console sent a frame that is not JSON: " + partial, e);
                                    }
                                    partial.setLength(0);
                                }
                                ws.request(1);
                                return null;
                            }
                        }).get(10, TimeUnit.SECONDS);
    }

    static ConsoleSocket open(SystemFixture.Launched brain, String conversation) throws Exception {
        return new ConsoleSocket(brain, conversation);
    }

    void say(String text) {
        socket.sendText(SystemFixture.JSON.createObjectNode().put("type", "say").put("text", text).toString(), true)
                .join();
    }

    /** The first frame (from now) that {@code wanted} accepts, within 20 s. */
    JsonNode await(Predicate<JsonNode> wanted) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        StringBuilder seen = new StringBuilder();
        while (System.nanoTime() < end) {
            JsonNode frame = frames.poll(100, TimeUnit.MILLISECONDS);
            if (frame != null) {
                if (wanted.test(frame)) {
                    return frame;
                }
                seen.append(frame).append('\n');
            }
        }
        throw new AssertionError("the console did not send the frame expected within 20 s; it sent:\n" + seen);
    }

    @Override
    public void close() {
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").orTimeout(5, TimeUnit.SECONDS).exceptionally(e -> null)
                .join();
    }
}
