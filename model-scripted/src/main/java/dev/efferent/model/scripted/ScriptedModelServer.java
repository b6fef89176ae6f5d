package dev.efferent.model.scripted;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A language model server for tests: real HTTP on 127.0.0.1, speaking OpenAI's chat completions
 * ({@code POST /v1/chat/completions}) and Anthropic's Messages ({@code POST /v1/messages}), whole or streamed as the
 * request asks. Each request takes the next {@link Step} of the script (or asks the fallback, which by default
 * answers "(script exhausted)"); every request is recorded so a test can assert what the client sent.
 */
public final class ScriptedModelServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final BlockingQueue<Function<Received, Step>> script = new LinkedBlockingQueue<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Received> arrivals = new LinkedBlockingQueue<>();
    private volatile Function<Received, Step> fallback = r -> Step.Reply.text("(script exhausted)");

    private ScriptedModelServer(HttpServer server) {
        this.server = server;
    }

    /** Starts a server on a free port of 127.0.0.1. */
    public static ScriptedModelServer start() throws IOException {
        // A streamed answer is many small writes: without TCP_NODELAY each waits for the client's delayed ACK.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ScriptedModelServer s = new ScriptedModelServer(http);
        http.createContext("/", s::handle);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.start();
        return s;
    }

    /** The base URL an OpenAI-compatible client is given: {@code http://127.0.0.1:<port>/v1}. */
    public String openAiBaseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    /** The base URL an Anthropic client is given: {@code http://127.0.0.1:<port>}. */
    public String anthropicBaseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Adds steps to the script, in order. */
    public ScriptedModelServer then(Step... steps) {
        for (Step step : steps) {
            script.add(r -> step);
        }
        return this;
    }

    /** Adds a step decided when its request arrives, e.g. a reply quoting the tool result it received. */
    public ScriptedModelServer then(Function<Received, Step> step) {
        script.add(step);
        return this;
    }

    /** What to do once the script is used up. */
    public ScriptedModelServer otherwise(Function<Received, Step> step) {
        fallback = step;
        return this;
    }

    /** Every request received so far, in order. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    /** The next request to arrive (or that arrived and was not yet taken), within {@code timeout}. */
    public Received next(Duration timeout) throws InterruptedException {
        Received r = arrivals.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (r == null) {
            throw new AssertionError("the model server received no request within " + timeout.toMillis() + " ms");
        }
        return r;
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            long arrived = System.nanoTime();
            JsonNode body;
            try {
                body = JSON.readTree(exchange.getRequestBody());
            } catch (IOException e) {
                send(exchange, 400, "{\"error\":{\"message\":\"body is not JSON\"}}", Map.of());
                return;
            }
            Map<String, String> headers = new HashMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.getFirst()));
            Received r = new Received(exchange.getRequestURI().getPath(), headers, body, arrived);
            received.add(r);
            arrivals.add(r);
            Function<Received, Step> next = script.poll();
            Step step = (next == null ? fallback : next).apply(r);
            boolean anthropic = r.path().endsWith("/messages");
            switch (step) {
                case Step.Fail f -> send(exchange, f.status(), f.body(), f.headers());
                case Step.Hang h -> sleep(h.duration());
                case Step.Reply reply -> {
                    boolean stream = body.path("stream").asBoolean(false);
                    if (!stream) {
                        send(exchange, 200, (anthropic ? anthropicWhole(reply) : openAiWhole(reply)).toString(), Map.of());
                    } else {
                        exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
                        exchange.sendResponseHeaders(200, 0);
                        OutputStream out = exchange.getResponseBody();
                        if (anthropic) {
                            anthropicStream(reply, out);
                        } else {
                            openAiStream(reply, out);
                        }
                    }
                }
            }
        } catch (IOException e) {
            // The client went away (a stopped turn, a timeout): nothing to answer.
        }
    }

    private static void send(HttpExchange exchange, int status, String body, Map<String, String> headers)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        headers.forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    private static ObjectNode openAiWhole(Step.Reply reply) {
        ObjectNode a = JSON.createObjectNode().put("id", "chatcmpl-1").put("object", "chat.completion");
        ObjectNode choice = a.putArray("choices").addObject().put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        if (reply.text().isEmpty()) {
            message.putNull("content");
        } else {
            message.put("content", reply.text());
        }
        if (!reply.calls().isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            reply.calls().forEach(c -> calls.addObject().put("id", c.id()).put("type", "function")
                    .putObject("function").put("name", c.name()).put("arguments", c.arguments()));
        }
        choice.put("finish_reason", reply.calls().isEmpty() ? "stop" : "tool_calls");
        a.putObject("usage").put("prompt_tokens", reply.inputTokens()).put("completion_tokens", reply.outputTokens());
        return a;
    }

    private static void openAiStream(Step.Reply reply, OutputStream out) throws IOException {
        event(out, null, JSON.createObjectNode().set("choices", JSON.createArrayNode().add(
                JSON.createObjectNode().put("index", 0).set("delta", JSON.createObjectNode().put("role", "assistant")))));
        for (String piece : pieces(reply.text(), reply.pieceChars())) {
            sleep(reply.pieceDelay());
            ObjectNode chunk = JSON.createObjectNode();
            chunk.putArray("choices").addObject().put("index", 0).putObject("delta").put("content", piece);
            event(out, null, chunk);
        }
        for (int i = 0; i < reply.calls().size(); i++) {
            Step.Call c = reply.calls().get(i);
            // The arguments arrive in two fragments, as real servers split them.
            int half = c.arguments().length() / 2;
            ObjectNode first = JSON.createObjectNode();
            ObjectNode call = first.putArray("choices").addObject().put("index", 0).putObject("delta")
                    .putArray("tool_calls").addObject().put("index", i).put("id", c.id()).put("type", "function");
            call.putObject("function").put("name", c.name()).put("arguments", c.arguments().substring(0, half));
            event(out, null, first);
            ObjectNode second = JSON.createObjectNode();
            second.putArray("choices").addObject().put("index", 0).putObject("delta").putArray("tool_calls")
                    .addObject().put("index", i).putObject("function").put("arguments", c.arguments().substring(half));
            event(out, null, second);
        }
        ObjectNode last = JSON.createObjectNode();
        last.putArray("choices").addObject().put("index", 0).put("finish_reason",
                reply.calls().isEmpty() ? "stop" : "tool_calls").putObject("delta");
        event(out, null, last);
        ObjectNode usage = JSON.createObjectNode();
        usage.putArray("choices");
        usage.putObject("usage").put("prompt_tokens", reply.inputTokens()).put("completion_tokens", reply.outputTokens());
        event(out, null, usage);
        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static ObjectNode anthropicWhole(Step.Reply reply) {
        ObjectNode a = JSON.createObjectNode().put("id", "msg_1").put("type", "message").put("role", "assistant");
        ArrayNode content = a.putArray("content");
        if (!reply.text().isEmpty()) {
            content.addObject().put("type", "text").put("text", reply.text());
        }
        for (Step.Call c : reply.calls()) {
            ObjectNode use = content.addObject().put("type", "tool_use").put("id", c.id()).put("name", c.name());
            use.set("input", inputOf(c));
        }
        a.put("stop_reason", reply.calls().isEmpty() ? "end_turn" : "tool_use");
        a.putObject("usage").put("input_tokens", reply.inputTokens()).put("output_tokens", reply.outputTokens());
        return a;
    }

    private static void anthropicStream(Step.Reply reply, OutputStream out) throws IOException {
        ObjectNode start = JSON.createObjectNode().put("type", "message_start");
        ObjectNode message = start.putObject("message").put("id", "msg_1").put("type", "message").put("role", "assistant");
        message.putArray("content");
        message.putObject("usage").put("input_tokens", reply.inputTokens()).put("output_tokens", 1);
        event(out, "message_start", start);
        event(out, "ping", JSON.createObjectNode().put("type", "ping"));
        int index = 0;
        if (!reply.text().isEmpty()) {
            ObjectNode blockStart = JSON.createObjectNode().put("type", "content_block_start").put("index", index);
            blockStart.putObject("content_block").put("type", "text").put("text", "");
            event(out, "content_block_start", blockStart);
            for (String piece : pieces(reply.text(), reply.pieceChars())) {
                sleep(reply.pieceDelay());
                ObjectNode delta = JSON.createObjectNode().put("type", "content_block_delta").put("index", index);
                delta.putObject("delta").put("type", "text_delta").put("text", piece);
                event(out, "content_block_delta", delta);
            }
            event(out, "content_block_stop", JSON.createObjectNode().put("type", "content_block_stop").put("index", index));
            index++;
        }
        for (Step.Call c : reply.calls()) {
            ObjectNode blockStart = JSON.createObjectNode().put("type", "content_block_start").put("index", index);
            blockStart.putObject("content_block").put("type", "tool_use").put("id", c.id()).put("name", c.name())
                    .putObject("input");
            event(out, "content_block_start", blockStart);
            int half = c.arguments().length() / 2;
            for (String part : List.of(c.arguments().substring(0, half), c.arguments().substring(half))) {
                ObjectNode delta = JSON.createObjectNode().put("type", "content_block_delta").put("index", index);
                delta.putObject("delta").put("type", "input_json_delta").put("partial_json", part);
                event(out, "content_block_delta", delta);
            }
            event(out, "content_block_stop", JSON.createObjectNode().put("type", "content_block_stop").put("index", index));
            index++;
        }
        ObjectNode delta = JSON.createObjectNode().put("type", "message_delta");
        delta.putObject("delta").put("stop_reason", reply.calls().isEmpty() ? "end_turn" : "tool_use");
        delta.putObject("usage").put("output_tokens", reply.outputTokens());
        event(out, "message_delta", delta);
        event(out, "message_stop", JSON.createObjectNode().put("type", "message_stop"));
    }

    private static JsonNode inputOf(Step.Call c) {
        try {
            return JSON.readTree(c.arguments());
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    private static List<String> pieces(String text, int size) {
        List<String> pieces = new ArrayList<>();
        for (int i = 0; i < text.length(); i += size) {
            pieces.add(text.substring(i, Math.min(text.length(), i + size)));
        }
        return pieces;
    }

    private static void event(OutputStream out, String name, JsonNode data) throws IOException {
        String frame = (name == null ? "" : "event: " + name + "\n") + "data: " + data + "\n\n";
        out.write(frame.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static void sleep(Duration d) {
        if (d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
