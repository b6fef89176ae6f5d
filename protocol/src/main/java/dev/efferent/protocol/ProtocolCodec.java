package dev.efferent.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Encodes messages to JSON text frames and decodes frames strictly. Every refused frame raises a
 * {@link ProtocolException} whose code and message go into the {@code error} frame that answers it.
 * Fields a receiver does not know are ignored, so a later minor revision may add optional fields.
 * Instances are immutable and thread-safe.
 */
public final class ProtocolCodec {
    private static final Set<String> PLACEMENTS = Set.of("LOCAL", "CLOUD", "HYBRID");
    private static final List<String> TYPES = List.of(WorkerRegister.TYPE, WorkerAck.TYPE, WorkerHeartbeat.TYPE, WorkerTools.TYPE,
            TaskDispatch.TYPE, TaskAccepted.TYPE, TaskRejected.TYPE, TaskProgress.TYPE, TaskCancel.TYPE,
            TaskResult.TYPE, TaskResultAck.TYPE, ErrorMessage.TYPE);

    private final ObjectMapper mapper;
    private final int maxFrameBytes;

    /** A codec with the default maximum frame size of 1 MiB. */
    public ProtocolCodec() {
        this(WireLimits.DEFAULT_MAX_FRAME_BYTES);
    }

    /** A codec that refuses frames over {@code maxFrameBytes} UTF-8 bytes, in both directions. */
    public ProtocolCodec(int maxFrameBytes) {
        if (maxFrameBytes < 1024) {
            throw new IllegalArgumentException("maxFrameBytes must be at least 1024, got " + maxFrameBytes);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.mapper = JsonMapper.builder(JsonFactory.builder()
                        .streamReadConstraints(StreamReadConstraints.builder()
                                .maxNestingDepth(WireLimits.MAX_NESTING).build())
                        .build())
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
    }

    /** The largest frame this codec accepts or produces, in UTF-8 bytes. */
    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** The message types of protocol v1, in the order of {@code docs/protocol.md}. */
    public static List<String> types() {
        return TYPES;
    }

    /**
     * Encodes a message as one JSON text frame.
     *
     * @throws ProtocolException with {@link ErrorCode#FRAME_TOO_LARGE} if the frame would exceed the maximum
     */
    public String encode(Message message) {
        ObjectNode frame = toJson(message);
        String text;
        try {
            text = mapper.writeValueAsString(frame);
        } catch (JsonProcessingException e) {
            throw new ProtocolException(ErrorCode.INTERNAL, "cannot encode " + message.type() + ": " + e, e);
        }
        checkSize(text, message.type() + " frame");
        return text;
    }

    /**
     * Decodes one JSON text frame.
     *
     * @throws ProtocolException naming what was wrong: not JSON, not an object, no or unknown type, a missing,
     *                           mistyped or out-of-range field, or a frame over the maximum size
     */
    public Message decode(String text) {
        checkSize(text, "frame");
        JsonNode node;
        try {
            node = mapper.readTree(text);
        } catch (JsonProcessingException e) {
            var location = e.getLocation();
            String where = location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
            throw new ProtocolException(ErrorCode.INVALID_JSON, "frame is not valid JSON" + where + ": " + why(e), e);
        }
        if (node == null || node.isMissingNode()) {
            throw new ProtocolException(ErrorCode.INVALID_JSON, "frame is empty; expected a JSON object");
        }
        if (!node.isObject()) {
            throw new ProtocolException(ErrorCode.NOT_AN_OBJECT,
                    "frame must be a JSON object, got " + FrameReader.describe(node));
        }
        ObjectNode frame = (ObjectNode) node;
        checkFinite(frame, "");
        JsonNode typeNode = frame.get("type");
        if (typeNode == null || typeNode.isNull()) {
            throw new ProtocolException(ErrorCode.MISSING_TYPE, "frame has no 'type' field; expected one of " + TYPES);
        }
        if (!typeNode.isTextual()) {
            throw new ProtocolException(ErrorCode.MISSING_TYPE,
                    "frame field 'type' must be a string, got " + FrameReader.describe(typeNode));
        }
        String type = typeNode.textValue();
        FrameReader r = new FrameReader(type, frame);
        try {
            return switch (type) {
                case WorkerRegister.TYPE -> new WorkerRegister(
                        (int) r.integer("protocolVersion", 1, Integer.MAX_VALUE),
                        r.text("workerId"), r.text("name"), r.optionalText("hostname"), r.optionalText("platform"),
                        capabilities(r),
                        (int) r.integer("maxConcurrentTasks", 1, WireLimits.MAX_CONCURRENCY));
                case WorkerTools.TYPE -> new WorkerTools(capabilities(r));
                case WorkerAck.TYPE -> new WorkerAck(r.text("workerId"),
                        r.integer("queuedTasks", 0, Long.MAX_VALUE),
                        r.integer("heartbeatIntervalMs", 1, Long.MAX_VALUE),
                        (int) r.integer("maxFrameBytes", 0, Integer.MAX_VALUE, 0));
                case WorkerHeartbeat.TYPE -> new WorkerHeartbeat(r.integer("uptimeSeconds", 0, Long.MAX_VALUE),
                        r.number("loadAverage"), (int) r.integer("activeTasks", 0, Integer.MAX_VALUE));
                case TaskDispatch.TYPE -> new TaskDispatch(r.text("taskId"), r.text("tool"), r.object("params"),
                        (int) r.integer("priority", WireLimits.MIN_PRIORITY, WireLimits.MAX_PRIORITY,
                                WireLimits.DEFAULT_PRIORITY),
                        r.integer("timeoutMs", 1, Long.MAX_VALUE, WireLimits.DEFAULT_TIMEOUT_MS),
                        (int) r.integer("attempt", 1, Integer.MAX_VALUE), r.optionalText("session"));
                case TaskAccepted.TYPE -> new TaskAccepted(r.text("taskId"));
                case TaskRejected.TYPE -> new TaskRejected(r.text("taskId"), rejectReason(r),
                        r.optionalText("message"));
                case TaskProgress.TYPE -> new TaskProgress(r.text("taskId"), (int) r.integer("percent", 0, 100),
                        r.optionalText("message"));
                case TaskCancel.TYPE -> new TaskCancel(r.text("taskId"), r.optionalText("reason"));
                case TaskResult.TYPE -> taskResult(r);
                case TaskResultAck.TYPE -> new TaskResultAck(r.text("taskId"));
                case ErrorMessage.TYPE -> errorMessage(r);
                default -> throw new ProtocolException(ErrorCode.UNKNOWN_TYPE,
                        "unknown message type '" + type + "'; expected one of " + TYPES);
            };
        } catch (IllegalArgumentException e) {
            // The reader checks what the records check; this is the safety net for anything it missed.
            throw new ProtocolException(ErrorCode.OUT_OF_RANGE, type + ": " + e.getMessage(), e);
        }
    }

    /** What is wrong with the JSON, in our words: the parser's own wording names its internals. */
    private static String why(JsonProcessingException e) {
        String original = String.valueOf(e.getOriginalMessage());
        if (e instanceof JsonEOFException) {
            return "it ends before the JSON value is complete";
        }
        if (e instanceof StreamConstraintsException) {
            return original.contains("nesting depth") ? "it is nested more than " + WireLimits.MAX_NESTING
                    + " levels deep" : "a number or a string in it is too long";
        }
        var duplicate = Pattern.compile("Duplicate field '([^']*)'").matcher(original);
        if (duplicate.find()) {
            return "field '" + FrameReader.shorten(duplicate.group(1)) + "' appears twice (Duplicate field)";
        }
        if (original.startsWith("Trailing token")) {
            return "there is more after the JSON object";
        }
        var unexpected = Pattern.compile("Unexpected character \\('(.+?)' \\(code (\\d+)")
                .matcher(original);
        if (unexpected.find()) {
            return "unexpected character '" + FrameReader.shorten(unexpected.group(1)) + "' (code "
                    + unexpected.group(2) + ")";
        }
        var word = Pattern.compile("Unrecognized token '(.*?)'").matcher(original);
        if (word.find()) {
            return "unexpected word '" + FrameReader.shorten(word.group(1)) + "'";
        }
        if (original.contains("Invalid UTF-8") || original.contains("surrogate")) {
            return "it is not valid UTF-8 text";
        }
        if (original.contains("control character")) {
            return "a string in it holds an unescaped control character";
        }
        return "it does not parse as a JSON object";
    }

    /**
     * A number too large for a double (1e400) would be read as Infinity and sent on as the string "Infinity":
     * anywhere in a frame, params and results included, it is refused.
     */
    private static void checkFinite(JsonNode root, String rootPath) {
        // Iterative: the depth is bounded by the parser, but a walk should not spend the stack on it either.
        ArrayDeque<Map.Entry<String, JsonNode>> work = new ArrayDeque<>();
        work.push(Map.entry(rootPath, root));
        while (!work.isEmpty()) {
            Map.Entry<String, JsonNode> next = work.pop();
            String path = next.getKey();
            JsonNode node = next.getValue();
            if (node.isObject()) {
                node.properties().forEach(e -> work.push(Map.entry(path.isEmpty() ? e.getKey()
                        : path + "." + e.getKey(), e.getValue())));
            } else if (node.isArray()) {
                for (int i = 0; i < node.size(); i++) {
                    work.push(Map.entry(path + "[" + i + "]", node.get(i)));
                }
            } else if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
                throw new ProtocolException(ErrorCode.OUT_OF_RANGE, "field '" + path + "' is a number too large to "
                        + "represent (" + node.asText() + "); numbers must be finite");
            }
        }
    }

    private void checkSize(String text, String what) {
        // UTF-8 needs at least one byte per char and at most three per char (a surrogate pair is two chars,
        // four bytes): count the bytes only when the char count leaves the answer open.
        if ((long) text.length() * 3 <= maxFrameBytes) {
            return;
        }
        long bytes = text.length() > maxFrameBytes ? text.length() : text.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxFrameBytes) {
            throw new ProtocolException(ErrorCode.FRAME_TOO_LARGE, what + " of " + (text.length() > maxFrameBytes
                    ? "more than " + maxFrameBytes : bytes) + " bytes exceeds the maximum of " + maxFrameBytes + " bytes");
        }
    }

    private static List<ToolDescriptor> capabilities(FrameReader r) {
        JsonNode array = r.array("capabilities");
        if (array.size() > WireLimits.MAX_TOOLS) {
            throw r.outOfRange("capabilities", "at most " + WireLimits.MAX_TOOLS + " tools", array.size() + " tools");
        }
        List<ToolDescriptor> tools = new ArrayList<>(array.size());
        Set<String> names = new HashSet<>();
        for (int i = 0; i < array.size(); i++) {
            FrameReader t = r.nested("capabilities[" + i + "]", array.get(i));
            String placement = t.text("placement");
            if (!PLACEMENTS.contains(placement)) {
                throw t.outOfRange("placement", "one of " + PLACEMENTS.stream().sorted().toList(), "'" + placement + "'");
            }
            String name = t.text("name");
            if (!WireLimits.TOOL_NAME.matcher(name).matches()) {
                throw t.outOfRange("name", "a tool name matching " + WireLimits.TOOL_NAME.pattern(),
                        "'" + FrameReader.shorten(name) + "'");
            }
            if (!names.add(name)) {
                throw t.outOfRange("name", "a name no other tool of this worker has", "a second '" + name + "'");
            }
            ObjectNode schema = t.object("inputSchema");
            if (schema.has("type") && !"object".equals(schema.path("type").asText())) {
                throw t.outOfRange("inputSchema", "a JSON Schema of an object ({\"type\": \"object\", …})",
                        "type " + FrameReader.describe(schema.path("type")));
            }
            int depth = depth(schema, 0);
            if (depth > WireLimits.MAX_SCHEMA_DEPTH) {
                throw t.outOfRange("inputSchema", "at most " + WireLimits.MAX_SCHEMA_DEPTH + " levels deep",
                        "more than " + WireLimits.MAX_SCHEMA_DEPTH + " levels");
            }
            var annotations = t.objectIfPresent("annotations")
                    .map(a -> t.nested("annotations", a));
            tools.add(new ToolDescriptor(name, t.optionalText("description"), schema,
                    placement,
                    annotations.map(a -> a.bool("readOnlyHint", false)).orElse(false),
                    annotations.map(a -> a.bool("destructiveHint", false)).orElse(false),
                    annotations.map(a -> a.bool("idempotentHint", false)).orElse(false),
                    annotations.map(a -> a.bool("openWorldHint", false)).orElse(false),
                    t.optionalText("origin")));
        }
        return tools;
    }

    /** How deep {@code node} nests, stopping early once past the limit. */
    private static int depth(JsonNode node, int level) {
        if (level > WireLimits.MAX_SCHEMA_DEPTH || !node.isContainerNode()) {
            return level;
        }
        int deepest = level + 1;
        for (JsonNode child : node) {
            deepest = Math.max(deepest, depth(child, level + 1));
            if (deepest > WireLimits.MAX_SCHEMA_DEPTH) {
                break;
            }
        }
        return deepest;
    }

    private static RejectReason rejectReason(FrameReader r) {
        String value = r.text("reason");
        return RejectReason.fromWire(value).orElseThrow(() -> r.outOfRange("reason",
                "one of " + Arrays.stream(RejectReason.values()).map(RejectReason::wire).toList(),
                "'" + value + "'"));
    }

    private static ErrorMessage errorMessage(FrameReader r) {
        String value = r.text("code");
        String message = r.optionalText("message");
        // An error code from a newer peer is still an error: keep it, readable, rather than refusing the frame.
        return ErrorCode.fromWire(value).map(code -> new ErrorMessage(code, message))
                .orElseGet(() -> new ErrorMessage(ErrorCode.INTERNAL, "[" + FrameReader.shorten(value) + "] " + message));
    }

    private static TaskResult taskResult(FrameReader r) {
        String taskId = r.text("taskId");
        String value = r.text("status");
        ResultStatus status = ResultStatus.fromWire(value).orElseThrow(() -> r.outOfRange("status",
                "one of [completed, failed, cancelled]", "'" + value + "'"));
        var result = r.objectIfPresent("result");
        var error = r.textIfPresent("error");
        long duration = r.integer("durationMs", 0, Long.MAX_VALUE);
        if (status == ResultStatus.COMPLETED && result.isEmpty()) {
            throw new ProtocolException(ErrorCode.MISSING_FIELD,
                    r.prefix("result") + " is missing; it is required when status is completed");
        }
        if (result.isPresent()) {
            checkCallToolResult(r.nested("result", result.get()));
        }
        if (status != ResultStatus.COMPLETED && error.isEmpty()) {
            throw new ProtocolException(ErrorCode.MISSING_FIELD,
                    r.prefix("error") + " is missing; it is required when status is " + value);
        }
        return new TaskResult(taskId, status, result, error, duration);
    }

    /** A result is MCP's CallToolResult: {@code content}, an array of items with a {@code type}, and {@code isError}. */
    private static void checkCallToolResult(FrameReader result) {
        JsonNode content = result.array("content");
        for (int i = 0; i < content.size(); i++) {
            result.nested("content[" + i + "]", content.get(i)).text("type");
        }
        result.requiredBool("isError");
    }

    private ObjectNode toJson(Message message) {
        ObjectNode f = mapper.createObjectNode();
        f.put("type", message.type());
        switch (message) {
            case WorkerRegister m -> {
                f.put("protocolVersion", m.protocolVersion());
                f.put("workerId", m.workerId());
                f.put("name", m.name());
                f.put("hostname", m.hostname());
                f.put("platform", m.platform());
                ArrayNode caps = f.putArray("capabilities");
                m.capabilities().forEach(t -> caps.add(toJson(t)));
                f.put("maxConcurrentTasks", m.maxConcurrentTasks());
            }
            case WorkerTools m -> {
                ArrayNode caps = f.putArray("capabilities");
                m.capabilities().forEach(t -> caps.add(toJson(t)));
            }
            case WorkerAck m -> {
                f.put("workerId", m.workerId());
                f.put("queuedTasks", m.queuedTasks());
                f.put("heartbeatIntervalMs", m.heartbeatIntervalMs());
                if (m.maxFrameBytes() > 0) {
                    f.put("maxFrameBytes", m.maxFrameBytes());
                }
            }
            case WorkerHeartbeat m -> {
                f.put("uptimeSeconds", m.uptimeSeconds());
                f.put("loadAverage", m.loadAverage());
                f.put("activeTasks", m.activeTasks());
            }
            case TaskDispatch m -> {
                f.put("taskId", m.taskId());
                f.put("tool", m.tool());
                f.set("params", m.params());
                f.put("priority", m.priority());
                f.put("timeoutMs", m.timeoutMs());
                f.put("attempt", m.attempt());
                if (!m.session().isEmpty()) {
                    f.put("session", m.session());
                }
            }
            case TaskAccepted m -> f.put("taskId", m.taskId());
            case TaskRejected m -> {
                f.put("taskId", m.taskId());
                f.put("reason", m.reason().wire());
                f.put("message", m.message());
            }
            case TaskProgress m -> {
                f.put("taskId", m.taskId());
                f.put("percent", m.percent());
                f.put("message", m.message());
            }
            case TaskCancel m -> {
                f.put("taskId", m.taskId());
                f.put("reason", m.reason());
            }
            case TaskResult m -> {
                f.put("taskId", m.taskId());
                f.put("status", m.status().wire());
                m.result().ifPresent(result -> f.set("result", result));
                m.error().ifPresent(error -> f.put("error", error));
                f.put("durationMs", m.durationMs());
            }
            case TaskResultAck m -> f.put("taskId", m.taskId());
            case ErrorMessage m -> {
                f.put("code", m.code().wire());
                f.put("message", m.message());
            }
        }
        return f;
    }

    private ObjectNode toJson(ToolDescriptor tool) {
        ObjectNode t = mapper.createObjectNode();
        t.put("name", tool.name());
        t.put("description", tool.description());
        t.set("inputSchema", tool.inputSchema());
        t.put("placement", tool.placement());
        ObjectNode hints = t.putObject("annotations");
        hints.put("readOnlyHint", tool.readOnly());
        hints.put("destructiveHint", tool.destructive());
        hints.put("idempotentHint", tool.idempotent());
        hints.put("openWorldHint", tool.openWorld());
        if (!tool.origin().isEmpty()) {
            t.put("origin", tool.origin());
        }
        return t;
    }
}
