package dev.efferent.brain.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.brain.BearerToken;
import dev.efferent.calls.Origin;
import dev.efferent.conversations.Wording;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.router.Router;
import dev.efferent.router.RouterException;
import dev.efferent.router.Submission;
import dev.efferent.router.Waiting;
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
import java.util.function.Consumer;

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
        if (id == null || id.isNull() || !message.has("method")) {
            // A notification, or a response to a request this server never sends: taken, nothing to answer.
            if (method.equals("notifications/cancelled")) {
                req.headers().first(SESSION).ifPresent(session -> cancel(session, message.path("params")));
            }
            res.status(Status.ACCEPTED_202).send();
            return;
        }
        Optional<String> session = req.headers().first(SESSION);
        if (session.isEmpty() && !method.equals("initialize")) {
            // Request ids are the client's own: without its session, a cancel could reach another client's call.
            send(res, Status.BAD_REQUEST_400, error(id, -32600, "send the Mcp-Session-Id header that initialize "
                    + "answered with"));
            return;
        }
        try {
            switch (method) {
                case "initialize" -> initialize(res, id, message.path("params"));
                case "ping" -> send(res, Status.OK_200, result(id, json.createObjectNode()));
                case "tools/list" -> send(res, Status.OK_200, result(id, tools.list()));
                case "tools/call" -> call(req, res, id, message.path("params"), sessions.get(session.orElseThrow()));
                default -> send(res, Status.OK_200, error(id, -32601, "method not found: '" + method + "'"));
            }
        } catch (QueueException e) {
            // As a JSON-RPC error, which a client shows: an HTTP error status is all it would say of a 503.
            send(res, Status.OK_200, error(id, -32603, "the task queue is unavailable: " + e.getMessage()));
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

    private void cancel(String sessionId, JsonNode params) {
        McpSessions.Call running = sessions.get(sessionId).calls.get(params.path("requestId").toString());
        if (running == null) {
            // Not a call of this session's that runs: nothing to cancel, and nothing kept.
            return;
        }
        running.cancelled = true;
        try {
            router.cancel(running.taskId, "cancelled by the MCP client" + (params.path("reason").isTextual()
                    ? ": " + params.get("reason").asText() : ""));
        } catch (RouterException e) {
            LOG.log(Level.DEBUG, "Task {0} had ended before its cancel: {1}", running.taskId, e.getMessage());
        }
    }

    private void call(ServerRequest req, ServerResponse res, JsonNode id, JsonNode params,
                      McpSessions.Session session) {
        McpTools.Prepared prepared = tools.prepare(params, new Origin.Mcp(req.headers().first(SESSION).orElse("")));
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
                    s = tools.submit(run);
                } catch (RouterException e) {
                    // As a result the client's model reads, and may correct (invalid arguments, a machine's refusal).
                    send(res, Status.OK_200, result(id, tools.text("Refused: " + e.getMessage() + ".", true)));
                    return;
                }
            }
        }
        Task task = s.task();
        if (s.offline()) {
            send(res, Status.OK_200, result(id, queued(Wording.of(s), task.id())));
            return;
        }
        String key = id.toString();
        McpSessions.Call running = new McpSessions.Call(task.id());
        session.calls.put(key, running);
        try {
            JsonNode token = params.path("_meta").path("progressToken");
            if (accepts(req, "text/event-stream")) {
                stream(res, id, running, token);
            } else {
                Optional<ObjectNode> done = await(running, progress -> { }, () -> { });
                if (done.isEmpty()) {
                    res.status(Status.NO_CONTENT_204).send();
                } else {
                    send(res, Status.OK_200, result(id, done.get()));
                }
            }
        } finally {
            session.calls.remove(key, running);
        }
    }

    /** What a client hears of a task that waits for an offline machine: the task, and that it waits. */
    private ObjectNode queued(String said, String taskId) {
        ObjectNode queued = tools.text(said, false);
        queued.putObject("structuredContent").put("taskId", taskId).put("status", "queued").put("offline", true);
        return queued;
    }

    /**
     * Answers as an event stream: progress while the task runs, if the client gave a progress {@code token} (a
     * missing node if not), then its result (none if the client cancelled).
     */
    private void stream(ServerResponse res, JsonNode id, McpSessions.Call running, JsonNode token) {
        res.header(HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/event-stream"));
        res.header(HeaderValues.create(HeaderNames.CACHE_CONTROL, "no-cache"));
        try (OutputStream out = res.outputStream()) {
            int[] sent = {0};
            Optional<ObjectNode> done;
            try {
                done = await(running, progress -> {
                if (!token.isMissingNode()) {
                    // Progress must grow with each notification: it counts them; the message says what happened.
                    ObjectNode p = json.createObjectNode().put("jsonrpc", "2.0").put("method", "notifications/progress");
                    ObjectNode params = p.putObject("params");
                    params.set("progressToken", token);
                    params.put("progress", ++sent[0]).put("message", progress.message().isEmpty()
                            ? progress.percent() + "%" : progress.message());
                    event(out, p.toString());
                }
                }, () -> event(out, null));
            } catch (UncheckedIOException e) {
                throw e;
            } catch (RuntimeException e) {
                // The stream has begun: the error goes in it, as the answer.
                LOG.log(Level.WARNING, "An MCP call of task " + running.taskId + " failed in the brain", e);
                event(out, error(id, -32603, "the brain failed while task " + running.taskId + " ran: "
                        + e.getMessage()).toString());
                return;
            }
            if (done.isPresent()) {
                event(out, result(id, done.get()).toString());
            }
        } catch (IOException | UncheckedIOException e) {
            // The client went away: the task goes on (its result stays with it, GET /api/v1/tasks/{id}).
            LOG.log(Level.DEBUG, "An MCP client left while task {0} ran: {1}", running.taskId, e.getMessage());
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
     * Waits for {@code running}'s task, telling {@code progress} of each new progress it reports and {@code quiet}
     * when it has said nothing for a while; then its result, or, if its machine went offline (or none that has
     * the tool is online), that it waits for one. Empty when the client cancelled the call, which then gets no
     * answer.
     */
    private Optional<ObjectNode> await(McpSessions.Call running, Consumer<Progress> progress,
                                       Runnable quiet) {
        String taskId = running.taskId;
        CompletableFuture<Task> finished = router.completion(taskId);
        Optional<Progress> last = Optional.empty();
        long quietSince = System.nanoTime();
        while (true) {
            try {
                Task task = finished.get(POLL.toMillis(), TimeUnit.MILLISECONDS);
                return running.cancelled ? Optional.empty() : Optional.of(tools.result(task));
            } catch (TimeoutException e) {
                if (running.cancelled) {
                    return Optional.empty();
                }
                Optional<Waiting> why = router.waiting(taskId);
                if (why.isPresent() && (why.get() instanceof Waiting.WorkerOffline
                        || why.get() instanceof Waiting.NoWorkerOnline)) {
                    // It may wait for days: the client hears so now, with the task.
                    return Optional.of(queued(Wording.of(why.get()) + " Task " + taskId + " runs when it can; "
                            + "GET /api/v1/tasks/" + taskId + " has its result then.", taskId));
                }
                Optional<Progress> now = Optional.empty();
                try {
                    now = router.task(taskId).flatMap(router::progress);
                } catch (QueueException q) {
                    // No progress this time; the next poll tries again.
                }
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
