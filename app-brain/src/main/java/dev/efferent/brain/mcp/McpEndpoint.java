package dev.efferent.brain.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.brain.BearerToken;
import dev.efferent.conversations.Wording;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.router.Router;
import dev.efferent.router.RouterException;
import dev.efferent.router.Submission;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code /mcp}: the MCP Streamable HTTP transport, stateful only as far as cancellation needs. A request is a POST
 * of one JSON-RPC message; {@code tools/call} answers as an event stream when the client accepts one, with progress
 * notifications while its task runs, then the result; a notification is answered 202. No server-initiated stream
 * ({@code GET} answers 405). The token is the REST API's.
 */
final class McpEndpoint implements HttpService {
    private static final System.Logger LOG = System.getLogger(McpEndpoint.class.getName());
    static final HeaderName SESSION = HeaderNames.create("Mcp-Session-Id");
    static final HeaderName VERSION = HeaderNames.create("MCP-Protocol-Version");
    /** What this server speaks, newest first; the first is answered to a client that asks for another. */
    static final List<String> VERSIONS = List.of("2025-06-18", "2025-03-26");
    /** How often a running call is looked at for progress. */
    private static final Duration POLL = Duration.ofMillis(250);
    /** A stream silent this long gets a comment, so that no proxy or client gives up on a long call. */
    private static final Duration KEEP_ALIVE = Duration.ofSeconds(20);

    private final Router router;
    private final McpTools tools;
    private final McpSessions sessions;
    private final BearerToken token;
    private final ObjectMapper json;
    private final String version;

    McpEndpoint(Router router, McpTools tools, McpSessions sessions, BearerToken token, ObjectMapper json,
                String version) {
        this.router = router;
        this.tools = tools;
        this.sessions = sessions;
        this.token = token;
        this.json = json;
        this.version = version;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.any(this::authenticate)
                .post(this::post)
                .delete(this::delete)
                .any((req, res) -> {
                    res.header(HeaderValues.create(HeaderNames.ALLOW, "POST, DELETE"));
                    send(res, Status.METHOD_NOT_ALLOWED_405, error(null, -32000, "this server sends no stream of its "
                            + "own: POST requests to /mcp"));
                });
    }

    private void authenticate(ServerRequest req, ServerResponse res) {
        if (token.accepts(req.headers())) {
            res.next();
            return;
        }
        res.header(HeaderValues.create(HeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"efferent\""));
        send(res, Status.UNAUTHORIZED_401, json.createObjectNode().put("status", 401).put("error", "missing or wrong "
                + "API token: send 'Authorization: Bearer <token>' with the brain's api.token, as for the REST API"));
    }

    private void delete(ServerRequest req, ServerResponse res) {
        Optional<String> id = req.headers().first(SESSION);
        res.status(id.isPresent() && sessions.close(id.get()) ? Status.NO_CONTENT_204 : Status.NOT_FOUND_404).send();
    }

    private void post(ServerRequest req, ServerResponse res) {
        JsonNode message;
        try {
            message = json.readTree(req.content().hasEntity() ? req.content().as(String.class) : "");
        } catch (JsonProcessingException e) {
            send(res, Status.BAD_REQUEST_400, error(null, -32700, "not JSON: " + e.getOriginalMessage()));
            return;
        }
        if (message == null || !message.isObject()) {
            send(res, Status.BAD_REQUEST_400, error(null, -32600, message != null && message.isArray()
                    ? "batches are not supported: send one JSON-RPC message per request" : "a JSON-RPC message is an "
                    + "object"));
            return;
        }
        Optional<String> asked = req.headers().first(VERSION);
        if (asked.isPresent() && !VERSIONS.contains(asked.get())) {
            send(res, Status.BAD_REQUEST_400, error(message.get("id"), -32600, "unsupported MCP-Protocol-Version '"
                    + asked.get() + "'; this server speaks " + String.join(", ", VERSIONS)));
            return;
        }
        String method = message.path("method").asText("");
        JsonNode id = message.get("id");
        if (id == null || id.isNull()) {
            // A notification (or a response to a request this server never sends): taken, nothing to answer.
            if (method.equals("notifications/cancelled")) {
                cancel(req, message.path("params"));
            }
            res.status(Status.ACCEPTED_202).send();
            return;
        }
        try {
            switch (method) {
                case "initialize" -> initialize(res, id, message.path("params"));
                case "ping" -> send(res, Status.OK_200, result(id, json.createObjectNode()));
                case "tools/list" -> send(res, Status.OK_200, result(id, tools.list()));
                case "tools/call" -> call(req, res, id, message.path("params"));
                default -> send(res, Status.OK_200, error(id, -32601, "method not found: '" + method + "'"));
            }
        } catch (QueueException e) {
            send(res, Status.SERVICE_UNAVAILABLE_503, error(id, -32603, "the task queue is unavailable: "
                    + e.getMessage()));
        }
    }

    private void initialize(ServerResponse res, JsonNode id, JsonNode params) {
        String asked = params.path("protocolVersion").asText("");
        ObjectNode result = json.createObjectNode().put("protocolVersion", VERSIONS.contains(asked) ? asked
                : VERSIONS.getFirst());
        result.putObject("capabilities").putObject("tools").put("listChanged", false);
        result.putObject("serverInfo").put("name", "efferent").put("version", version);
        result.put("instructions", "Every tool of every machine of the user's Efferent brain. Where more than one "
                + "machine has a tool, its 'worker' argument picks one.");
        res.header(HeaderValues.create(SESSION, sessions.open()));
        send(res, Status.OK_200, result(id, result));
    }

    private void cancel(ServerRequest req, JsonNode params) {
        McpSessions.Session session = sessions.get(req.headers().first(SESSION));
        String key = params.path("requestId").toString();
        String taskId = session.tasks.get(key);
        if (taskId == null) {
            // Not a call of this session's that runs: nothing to cancel, and nothing kept.
            return;
        }
        session.cancelled.add(key);
        try {
            router.cancel(taskId, "cancelled by the MCP client" + (params.path("reason").isTextual()
                    ? ": " + params.get("reason").asText() : ""));
        } catch (RouterException e) {
            LOG.log(Level.DEBUG, "Task {0} had ended before its cancel: {1}", taskId, e.getMessage());
        }
    }

    private void call(ServerRequest req, ServerResponse res, JsonNode id, JsonNode params) {
        McpTools.Prepared prepared = tools.prepare(params);
        Submission s;
        switch (prepared) {
            case McpTools.Prepared.Invalid i -> {
                send(res, Status.OK_200, error(id, -32602, i.message()));
                return;
            }
            case McpTools.Prepared.Refused r -> {
                send(res, Status.OK_200, result(id, tools.text(r.reason(), true)));
                return;
            }
            case McpTools.Prepared.Run run -> {
                try {
                    s = router.submit(run.request());
                } catch (RouterException e) {
                    send(res, Status.OK_200, e.kind() == RouterException.Kind.BAD_REQUEST
                            ? error(id, -32602, e.getMessage()) : result(id, tools.text(e.getMessage(), true)));
                    return;
                }
            }
        }
        Task task = s.task();
        if (s.offline()) {
            // The machine is offline: the client hears so now, with the task that waits for it.
            ObjectNode queued = tools.text(Wording.of(s), false);
            queued.putObject("structuredContent").put("taskId", task.id()).put("status", "queued")
                    .put("offline", true);
            send(res, Status.OK_200, result(id, queued));
            return;
        }
        McpSessions.Session session = sessions.get(req.headers().first(SESSION));
        String key = id.toString();
        session.tasks.put(key, task.id());
        try {
            Optional<JsonNode> token = Optional.ofNullable(params.path("_meta").get("progressToken"));
            if (accepts(req, "text/event-stream")) {
                stream(res, id, task.id(), token, session, key);
            } else {
                Optional<Task> done = await(task.id(), session, key, progress -> { }, () -> { });
                if (done.isEmpty()) {
                    res.status(Status.ACCEPTED_202).send();
                } else {
                    send(res, Status.OK_200, result(id, tools.result(done.get())));
                }
            }
        } finally {
            session.tasks.remove(key);
            session.cancelled.remove(key);
        }
    }

    /** Answers as an event stream: progress while the task runs, then its result (none if the client cancelled). */
    private void stream(ServerResponse res, JsonNode id, String taskId, Optional<JsonNode> token,
                        McpSessions.Session session, String key) {
        res.header(HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/event-stream"));
        res.header(HeaderValues.create(HeaderNames.CACHE_CONTROL, "no-cache"));
        try (OutputStream out = res.outputStream()) {
            int[] sent = {0};
            Optional<Task> done = await(taskId, session, key, progress -> {
                if (token.isPresent()) {
                    // Progress must grow with each notification: it counts them; the message says what happened.
                    ObjectNode p = json.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/progress");
                    ObjectNode params = p.putObject("params");
                    params.set("progressToken", token.get());
                    params.put("progress", ++sent[0]).put("message", progress.message().isEmpty()
                            ? progress.percent() + "%" : progress.message());
                    event(out, p.toString());
                }
            }, () -> event(out, null));
            if (done.isPresent()) {
                event(out, result(id, tools.result(done.get())).toString());
            }
        } catch (IOException | UncheckedIOException e) {
            // The client went away: the task goes on (its result stays with it, GET /api/v1/tasks/{id}).
            LOG.log(Level.DEBUG, "An MCP client left while task {0} ran: {1}", taskId, e.getMessage());
        }
    }

    /** One event: a message, or a comment that keeps the stream alive ({@code data} null). */
    private static void event(OutputStream out, String data) {
        try {
            out.write((data == null ? ": keep-alive\n\n" : "event: message\ndata: " + data + "\n\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits for task {@code taskId} to finish, telling {@code progress} of each new progress it reports and
     * {@code quiet} when it has said nothing for a while; empty when the client cancelled the call, which then gets
     * no answer.
     */
    private Optional<Task> await(String taskId, McpSessions.Session session, String key,
                                 java.util.function.Consumer<Progress> progress, Runnable quiet) {
        CompletableFuture<Task> finished = router.completion(taskId);
        Optional<Progress> last = Optional.empty();
        long quietSince = System.nanoTime();
        while (true) {
            try {
                Task task = finished.get(POLL.toMillis(), TimeUnit.MILLISECONDS);
                return session.cancelled.contains(key) ? Optional.empty() : Optional.of(task);
            } catch (TimeoutException e) {
                if (session.cancelled.contains(key)) {
                    return Optional.empty();
                }
                Optional<Progress> now = router.task(taskId).flatMap(router::progress);
                if (now.isPresent() && !now.equals(last)) {
                    last = now;
                    progress.accept(now.get());
                    quietSince = System.nanoTime();
                } else if (System.nanoTime() - quietSince > KEEP_ALIVE.toNanos()) {
                    quiet.run();
                    quietSince = System.nanoTime();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } catch (ExecutionException e) {
                throw new IllegalStateException("waiting for task " + taskId + " failed", e.getCause());
            }
        }
    }

    private static boolean accepts(ServerRequest req, String type) {
        return req.headers().first(HeaderNames.ACCEPT).map(a -> a.contains(type)).orElse(false);
    }

    private ObjectNode result(JsonNode id, ObjectNode result) {
        ObjectNode r = json.createObjectNode().put("jsonrpc", "2.0");
        r.set("id", id);
        r.set("result", result);
        return r;
    }

    private ObjectNode error(JsonNode id, int code, String message) {
        ObjectNode r = json.createObjectNode().put("jsonrpc", "2.0");
        r.set("id", id == null ? json.nullNode() : id);
        r.putObject("error").put("code", code).put("message", message);
        return r;
    }

    private void send(ServerResponse res, Status status, JsonNode body) {
        res.status(status);
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        res.send(body.toString());
    }
}
