package dev.efferent.brain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.Approvals;
import dev.efferent.calls.Gateway;
import dev.efferent.calls.Origin;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.conversations.ChatService;
import dev.efferent.conversations.ConversationEntry;
import dev.efferent.conversations.Wording;
import dev.efferent.pairing.Pairing;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Router;
import dev.efferent.router.RouterException;
import dev.efferent.router.Submission;
import dev.efferent.router.TaskRequest;
import dev.efferent.router.WorkerInfo;
import dev.efferent.scheduler.Scheduler;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The REST API under {@code /api/v1}: submit, list, get and cancel tasks; list workers and tools. Every
 * request needs {@code Authorization: Bearer <api.token>} (configured, or the one the brain made). Errors are JSON:
 * {@code {"status": 400, "error": "…"}}.
 */
final class ApiService implements HttpService {
    /** The channel name of conversations held over REST. */
    static final String API_CHANNEL = "api";
    private static final Pattern CONVERSATION_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final int MAX_MESSAGE_CHARS = 100_000;
    private static final Set<String> TASK_FIELDS = Set.of("tool", "params", "worker", "priority", "timeoutMs",
            "idempotencyKey");
    /** Who REST calls act for, and the session they run in: fixed by authentication, never chosen by the caller. */
    static final String PRINCIPAL = "api";
    private static final int MAX_WAIT_SECONDS = 300;
    private static final int MAX_LIST = 1000;

    private final Gateway gateway;
    private final Router router;
    private final BearerToken token;
    private final ObjectMapper json;
    private final Views views;
    private final ChatService chat;
    private final Approvals approvals;
    private final ScheduleApi schedules;
    private final PairingApi pairing;

    ApiService(Gateway gateway, ChatService chat, Approvals approvals, Scheduler scheduler, Pairing pairing,
               BearerToken token, ObjectMapper json) {
        this.gateway = gateway;
        this.router = gateway.router();
        this.chat = chat;
        this.approvals = approvals;
        this.token = token;
        this.json = json;
        this.views = new Views(json);
        this.schedules = new ScheduleApi(scheduler, json, views);
        this.pairing = new PairingApi(pairing, json, views);
    }

    @Override
    public void routing(HttpRules rules) {
        rules.any(this::authenticate)
                .post("/tasks", guarded(this::submit))
                .get("/tasks", guarded(this::list))
                .get("/tasks/{id}", guarded(this::get))
                .post("/tasks/{id}/cancel", guarded(this::cancel))
                .post("/tasks/{id}/approve", guarded(this::approve))
                .post("/tasks/{id}/deny", guarded(this::deny))
                .get("/policy", guarded(this::policy))
                .get("/workers", guarded(this::workers))
                .get("/tools", guarded(this::tools))
                .get("/conversations", guarded(this::conversations))
                .post("/conversations/{id}/messages", guarded(this::say))
                .get("/conversations/{id}/messages", guarded(this::messages))
                .get("/schedules", guarded(answered(schedules::list)))
                .post("/schedules", guarded(answered(schedules::create)))
                .get("/schedules/{id}", guarded(answered(schedules::get)))
                .delete("/schedules/{id}", guarded(answered(schedules::delete)))
                .post("/pairing-codes", guarded(answered(pairing::newCode)))
                .get("/worker-tokens", guarded(answered(pairing::list)))
                .delete("/worker-tokens/{name}", guarded(answered(pairing::revoke)));
    }

    /** A store that cannot be reached (PostgreSQL down) answers 503 at once with the reason. */
    private Handler guarded(Handler handler) {
        return (req, res) -> {
            try {
                handler.handle(req, res);
            } catch (QueueException e) {
                send(res, Status.SERVICE_UNAVAILABLE_503, views.error(503, "the task queue is unavailable: "
                        + e.getMessage()));
            }
        };
    }

    private Handler answered(Function<ServerRequest, Answer> resource) {
        return (req, res) -> {
            Answer a = resource.apply(req);
            send(res, a.status(), a.body());
        };
    }

    private void authenticate(ServerRequest req, ServerResponse res) {
        if (token.accepts(req.headers())) {
            res.next();
            return;
        }
        res.header(HeaderValues.create(HeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"efferent\""));
        send(res, Status.UNAUTHORIZED_401, views.error(401, "missing or wrong API token: send "
                + "'Authorization: Bearer <token>' with the brain's api.token (EFFERENT_API_TOKEN), or the one it made "
                + "in ~/.efferent/brain/api-token"));
    }

    private void submit(ServerRequest req, ServerResponse res) {
        ObjectNode body;
        Optional<Integer> wait;
        TaskRequest request;
        try {
            body = body(req);
            request = taskRequest(body);
            wait = waitSeconds(req);
        } catch (BadRequest e) {
            send(res, Status.BAD_REQUEST_400, views.error(400, e.getMessage()));
            return;
        }
        Submission submission;
        try {
            submission = gateway.submit(new Origin.Api(PRINCIPAL), request);
        } catch (RouterException e) {
            routerError(res, e);
            return;
        }
        Task task = submission.task();
        // A task queued for a machine that is offline answers at once: waiting could only time out.
        if (wait.isPresent() && !task.status().isFinished() && !submission.offline()) {
            task = await(task, wait.get());
        }
        ObjectNode view = view(task, names());
        view.put("message", Wording.of(submission));
        view.put("offline", submission.offline());
        send(res, task.status().isFinished() && wait.isPresent() ? Status.OK_200 : Status.ACCEPTED_202, view);
    }

    private Task await(Task task, int seconds) {
        CompletableFuture<Task> done = router.completion(task.id());
        try {
            return done.get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            done.cancel(false);
            return router.task(task.id()).orElse(task);
        } catch (ExecutionException e) {
            return router.task(task.id()).orElse(task);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return task;
        }
    }

    /** The REST API's own conversations are {@code api:<id>}; another channel's are named by their whole key. */
    private static Conversation conversation(String id) {
        if (id.contains(":")) {
            return Conversation.fromKey(id).filter(c -> CONVERSATION_ID.matcher(c.id()).matches()
                    && CONVERSATION_ID.matcher(c.channel()).matches()).orElseThrow(() -> new BadRequest(
                    "conversation '" + id + "' is not <channel>:<id> of letters, digits, '-' and '_'"));
        }
        if (!CONVERSATION_ID.matcher(id).matches()) {
            throw new BadRequest("a conversation id is 1 to 64 letters, digits, '-' or '_', got '" + id + "'");
        }
        return new Conversation(API_CHANNEL, id);
    }

    private void conversations(ServerRequest req, ServerResponse res) {
        int limit;
        try {
            limit = intParam(req, "limit", 100, 1, 1000);
        } catch (BadRequest e) {
            send(res, Status.BAD_REQUEST_400, views.error(400, e.getMessage()));
            return;
        }
        ObjectNode view = json.createObjectNode();
        var list = view.putArray("conversations");
        chat.recentConversations(limit).forEach(list::add);
        send(res, Status.OK_200, view);
    }

    private void say(ServerRequest req, ServerResponse res) {
        Conversation c;
        String text;
        Optional<Integer> wait;
        try {
            c = conversation(req.path().pathParameters().get("id"));
            if (!c.channel().equals(API_CHANNEL)) {
                throw new BadRequest("messages can be sent to the REST API's own conversations only (an id without "
                        + "':'); " + c.channel() + " conversations belong to their channel");
            }
            ObjectNode body = body(req);
            if (!body.has("text") || body.size() != 1) {
                throw new BadRequest("the body must be {\"text\": \"…\"} and nothing else");
            }
            text = text(body, "text").orElseThrow(() -> new BadRequest("field 'text' must be a non-empty string"));
            if (text.length() > MAX_MESSAGE_CHARS) {
                throw new BadRequest("a message is at most " + MAX_MESSAGE_CHARS + " characters, got " + text.length());
            }
            wait = waitSeconds(req);
        } catch (BadRequest e) {
            send(res, Status.BAD_REQUEST_400, views.error(400, e.getMessage()));
            return;
        }
        CompletableFuture<List<ConversationEntry>> turn = chat.handle(new IncomingMessage(c, "api", text));
        ObjectNode view = json.createObjectNode().put("conversation", c.key())
                .put("messages", "/api/v1/conversations/" + c.id() + "/messages");
        if (wait.isEmpty()) {
            send(res, Status.ACCEPTED_202, view.put("done", false));
            return;
        }
        try {
            List<ConversationEntry> replies = turn.get(wait.get(), TimeUnit.SECONDS);
            view.put("done", true);
            entries(view.putArray("replies"), replies);
            send(res, Status.OK_200, view);
        } catch (TimeoutException e) {
            send(res, Status.ACCEPTED_202, view.put("done", false));
        } catch (ExecutionException e) {
            send(res, Status.INTERNAL_SERVER_ERROR_500, views.error(500, "the message could not be handled: "
                    + e.getCause().getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            send(res, Status.ACCEPTED_202, view.put("done", false));
        }
    }

    private void messages(ServerRequest req, ServerResponse res) {
        Conversation c;
        int limit;
        try {
            c = conversation(req.path().pathParameters().get("id"));
            limit = intParam(req, "limit", 200, 1, 1000);
        } catch (BadRequest e) {
            send(res, Status.BAD_REQUEST_400, views.error(400, e.getMessage()));
            return;
        }
        ObjectNode view = json.createObjectNode().put("conversation", c.key());
        entries(view.putArray("messages"), chat.history(c, limit));
        send(res, Status.OK_200, view);
    }

    private static void entries(ArrayNode into, List<ConversationEntry> entries) {
        for (ConversationEntry e : entries) {
            ObjectNode m = into.addObject().put("from", e.fromPerson() ? "person" : "assistant").put("kind", e.kind())
                    .put("text", e.text()).put("ok", e.ok()).put("at", e.at().toString());
            e.taskId().ifPresent(id -> m.put("taskId", id));
        }
    }

    /** {@code POST /tasks/{id}/approve}, optional body {@code {"always": true}}. */
    private void approve(ServerRequest req, ServerResponse res) {
        answer(req, res, true);
    }

    /** {@code POST /tasks/{id}/deny}, optional body {@code {"reason": "…"}}. */
    private void deny(ServerRequest req, ServerResponse res) {
        answer(req, res, false);
    }

    private void answer(ServerRequest req, ServerResponse res, boolean allow) {
        String id = req.path().pathParameters().get("id");
        boolean always;
        String reason;
        try {
            ObjectNode body = body(req);
            Set<String> known = allow ? Set.of("always") : Set.of("reason");
            for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!known.contains(name)) {
                    throw new BadRequest("unknown field '" + name + "'; " + (allow ? "approve takes {\"always\": "
                            + "true|false}" : "deny takes {\"reason\": \"…\"}"));
                }
            }
            if (body.has("always") && !body.get("always").isBoolean()) {
                throw new BadRequest("field 'always' must be true or false");
            }
            always = body.path("always").asBoolean(false);
            reason = text(body, "reason").orElse("");
        } catch (BadRequest e) {
            send(res, Status.BAD_REQUEST_400, views.error(400, e.getMessage()));
            return;
        }
        String said;
        try {
            said = allow ? approvals.approve(id, PRINCIPAL, always)
                    : approvals.deny(id, PRINCIPAL, reason);
        } catch (RouterException e) {
            routerError(res, e);
            return;
        }
        ObjectNode view = views.task(router.task(id).orElseThrow(), names());
        view.put("message", said);
        send(res, Status.OK_200, view);
    }

    private void policy(ServerRequest req, ServerResponse res) {
        ObjectNode view = json.createObjectNode();
        var rules = view.putArray("rules");
        approvals.policy().rules().forEach(r -> rules.add(r.text()));
        view.put("timeout", approvals.timeout().toString());
        view.put("text", approvals.policy().describe());
        send(res, Status.OK_200, view);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Set<TaskStatus> statuses = EnumSet.noneOf(TaskStatus.class);
        int limit;
        try {
            for (String value : req.query().all("status", List::of)) {
                for (String s : value.split(",")) {
                    if (!s.isBlank()) {
                        statuses.add(status(s.strip()));
                    }
                }
            }
            limit = intParam(req, "limit", 100, 1, MAX_LIST);
        } catch (BadRequest e) {
            send(res, Status.BAD_REQUEST_400, views.error(400, e.getMessage()));
            return;
        }
        Function<String, String> names = names();
        ArrayNode tasks = json.createArrayNode();
        router.tasks(statuses, limit).forEach(t -> tasks.add(view(t, names)));
        ObjectNode out = json.createObjectNode();
        out.set("tasks", tasks);
        send(res, Status.OK_200, out);
    }

    private void get(ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("id");
        Optional<Task> task = router.task(id);
        if (task.isEmpty()) {
            send(res, Status.NOT_FOUND_404, views.error(404, "no task with id '" + id + "'"));
            return;
        }
        ObjectNode view = view(task.get(), names());
        router.waiting(id).ifPresent(why -> view.put("waiting", Wording.of(why)));
        List<JsonNode> approval = approvals.audit(id);
        if (!approval.isEmpty()) {
            view.putArray("approval").addAll(approval);
        }
        send(res, Status.OK_200, view);
    }

    private void cancel(ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("id");
        String reason = "cancelled by user";
        try {
            ObjectNode body = body(req);
            if (body.has("reason")) {
                reason = text(body, "reason").orElse(reason);
            }
        } catch (BadRequest e) {
            send(res, Status.BAD_REQUEST_400, views.error(400, e.getMessage()));
            return;
        }
        try {
            send(res, Status.OK_200, views.task(router.cancel(id, reason), names()));
        } catch (RouterException e) {
            routerError(res, e);
        }
    }

    private void workers(ServerRequest req, ServerResponse res) {
        ArrayNode workers = json.createArrayNode();
        router.workers().forEach(w -> workers.add(views.worker(w)));
        ObjectNode out = json.createObjectNode();
        out.set("workers", workers);
        send(res, Status.OK_200, out);
    }

    private void tools(ServerRequest req, ServerResponse res) {
        ArrayNode tools = json.createArrayNode();
        router.tools().forEach(t -> tools.add(views.tool(t)));
        ObjectNode out = json.createObjectNode();
        out.set("tools", tools);
        send(res, Status.OK_200, out);
    }

    private TaskRequest taskRequest(ObjectNode body) {
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (field.equals("requester")) {
                throw new BadRequest("field 'requester' is not accepted: the brain sets it from the credentials, so "
                        + "no caller can post results into another conversation");
            }
            if (!TASK_FIELDS.contains(field)) {
                throw new BadRequest("unknown field '" + field + "'; a task takes " + TASK_FIELDS.stream().sorted().toList());
            }
        }
        String tool = text(body, "tool").orElseThrow(() -> new BadRequest("field 'tool' is required: the tool to run, "
                + "e.g. {\"tool\": \"read_file\", \"params\": {\"path\": \"notes.txt\"}}"));
        JsonNode params = body.path("params");
        if (!params.isMissingNode() && !params.isNull() && !params.isObject()) {
            throw new BadRequest("field 'params' must be a JSON object");
        }
        ObjectNode paramsObject = params.isObject() ? (ObjectNode) params : json.createObjectNode();
        Optional<Integer> priority = integer(body, "priority").map(p -> {
            if (p < 1 || p > 10) {
                throw new BadRequest("field 'priority' must be from 1 to 10, got " + p);
            }
            return p;
        });
        Optional<Duration> timeout = integer(body, "timeoutMs").map(ms -> {
            if (ms <= 0) {
                throw new BadRequest("field 'timeoutMs' must be positive, got " + ms);
            }
            return Duration.ofMillis(ms);
        });
        return new TaskRequest(tool, paramsObject, text(body, "worker"), priority, timeout,
                Optional.empty(), Optional.empty(), text(body, "idempotencyKey"), false, Optional.empty());
    }

    private ObjectNode body(ServerRequest req) {
        String text = req.content().hasEntity() ? req.content().as(String.class) : "";
        if (text.isBlank()) {
            return json.createObjectNode();
        }
        try {
            JsonNode node = json.readTree(text);
            if (node == null || !node.isObject()) {
                throw new BadRequest("request body must be a JSON object");
            }
            return (ObjectNode) node;
        } catch (JsonProcessingException e) {
            throw new BadRequest("request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private static Optional<String> text(ObjectNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isTextual() || node.textValue().isBlank()) {
            throw new BadRequest("field '" + field + "' must be a non-empty string");
        }
        return Optional.of(node.textValue());
    }

    private static Optional<Integer> integer(ObjectNode body, String field) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw new BadRequest("field '" + field + "' must be an integer");
        }
        return Optional.of(node.intValue());
    }

    private static Optional<Integer> waitSeconds(ServerRequest req) {
        if (!req.query().contains("wait")) {
            return Optional.empty();
        }
        return Optional.of(intParam(req, "wait", 30, 0, MAX_WAIT_SECONDS));
    }

    private static int intParam(ServerRequest req, String name, int defaultValue, int min, int max) {
        Optional<String> value = req.query().first(name).asOptional().filter(v -> !v.isBlank());
        if (value.isEmpty()) {
            return defaultValue;
        }
        try {
            int n = Integer.parseInt(value.get().strip());
            if (n < min || n > max) {
                throw new BadRequest("query parameter '" + name + "' must be from " + min + " to " + max + ", got " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new BadRequest("query parameter '" + name + "' must be a whole number, got '" + value.get() + "'");
        }
    }

    private static TaskStatus status(String value) {
        try {
            return TaskStatus.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadRequest("unknown status '" + value + "'; use one of "
                    + EnumSet.allOf(TaskStatus.class).stream().map(s -> s.name().toLowerCase(Locale.ROOT)).toList());
        }
    }

    private Function<String, String> names() {
        Map<String, String> names = router.workers().stream()
                .collect(Collectors.toMap(WorkerInfo::id, WorkerInfo::name, (a, b) -> a));
        return id -> names.getOrDefault(id, id);
    }

    /** {@code task}'s view, with its last progress if it runs. */
    private ObjectNode view(Task task, Function<String, String> names) {
        return router.progress(task).map(p -> views.task(task, names, p)).orElseGet(() -> views.task(task, names));
    }

    private void routerError(ServerResponse res, RouterException e) {
        Status status = switch (e.kind()) {
            case BAD_REQUEST -> Status.BAD_REQUEST_400;
            case NOT_FOUND -> Status.NOT_FOUND_404;
            case CONFLICT -> Status.CONFLICT_409;
        };
        send(res, status, views.error(status.code(), e.getMessage()));
    }

    private void send(ServerResponse res, Status status, JsonNode body) {
        res.status(status);
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        try {
            res.send(json.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    /** A request the API refuses with 400 and this message. */
    private static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message);
        }
    }
}
