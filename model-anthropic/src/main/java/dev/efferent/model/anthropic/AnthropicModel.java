package dev.efferent.model.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.model.http.ModelHttp;
import dev.efferent.model.http.ModelSettings;
import dev.efferent.model.http.ServerSentEvents;
import dev.efferent.model.spi.Model;
import dev.efferent.model.spi.ModelException;
import dev.efferent.model.spi.ModelListener;
import dev.efferent.model.spi.ModelMessage;
import dev.efferent.model.spi.ModelReply;
import dev.efferent.model.spi.ModelRequest;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.model.spi.ToolCall;
import dev.efferent.model.spi.Usage;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** {@code POST /v1/messages}, streamed as server-sent events or answered whole. */
final class AnthropicModel implements Model {
    /** The API version this provider speaks. */
    static final String VERSION = "2023-06-01";

    private final ObjectMapper json = new ObjectMapper();
    private final ModelSettings settings;
    private final ModelHttp http;

    AnthropicModel(ModelSettings settings) {
        this.settings = settings;
        this.http = new ModelHttp(settings, "model.api-key (EFFERENT_MODEL_API__KEY) or ANTHROPIC_API_KEY", json);
    }

    @Override
    public String describe() {
        return settings.describe();
    }

    @Override
    public ModelReply complete(ModelRequest request, ModelListener listener) {
        Map<String, String> headers = new HashMap<>();
        headers.put("anthropic-version", VERSION);
        settings.apiKey().ifPresent(key -> headers.put("x-api-key", key));
        return http.post("/v1/messages", headers, body(request).toString(),
                in -> settings.stream() ? readStream(in, listener) : readWhole(in, listener));
    }

    ObjectNode body(ModelRequest request) {
        ObjectNode b = json.createObjectNode().put("model", settings.name()).put("max_tokens", settings.maxTokens());
        settings.temperature().ifPresent(t -> b.put("temperature", t));
        if (!request.system().isEmpty()) {
            b.put("system", request.system());
        }
        ArrayNode messages = b.putArray("messages");
        // Roles alternate: tool results, and a person's text after them, join one user message.
        ObjectNode current = null;
        for (ModelMessage m : request.messages()) {
            if (m instanceof ModelMessage.Assistant a && a.text().isEmpty() && a.toolCalls().isEmpty()) {
                continue; // The API refuses an empty message; an answer that said nothing adds nothing.
            }
            String role = m instanceof ModelMessage.Assistant ? "assistant" : "user";
            if (current == null || !current.path("role").asText().equals(role)) {
                current = messages.addObject().put("role", role);
                current.putArray("content");
            }
            ArrayNode content = (ArrayNode) current.get("content");
            switch (m) {
                case ModelMessage.User u -> content.addObject().put("type", "text").put("text", u.text());
                case ModelMessage.Assistant a -> {
                    if (!a.text().isEmpty()) {
                        content.addObject().put("type", "text").put("text", a.text());
                    }
                    for (ToolCall c : a.toolCalls()) {
                        content.addObject().put("type", "tool_use").put("id", c.id()).put("name", c.name())
                                .set("input", input(c));
                    }
                }
                case ModelMessage.ToolResult r -> content.addObject().put("type", "tool_result")
                        .put("tool_use_id", r.callId()).put("content", r.content()).put("is_error", r.error());
            }
        }
        if (!request.tools().isEmpty()) {
            ArrayNode tools = b.putArray("tools");
            for (ModelTool t : request.tools()) {
                try {
                    tools.addObject().put("name", t.name()).put("description", t.description())
                            .set("input_schema", json.readTree(t.inputSchema()));
                } catch (IOException e) {
                    throw new IllegalArgumentException("the input schema of tool " + t.name() + " is not JSON", e);
                }
            }
        }
        if (settings.stream()) {
            b.put("stream", true);
        }
        return b;
    }

    /** A call's input must be an object here; arguments the model wrote badly were answered with an error already. */
    private JsonNode input(ToolCall c) {
        try {
            JsonNode input = json.readTree(c.arguments());
            return input != null && input.isObject() ? input : json.createObjectNode();
        } catch (IOException e) {
            return json.createObjectNode();
        }
    }

    private ModelReply readWhole(InputStream in, ModelListener listener) throws IOException {
        JsonNode answer = json.readTree(in);
        if (answer == null || !answer.path("content").isArray()) {
            throw http.malformed("no content in " + shorten(String.valueOf(answer)));
        }
        StringBuilder text = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode block : answer.path("content")) {
            switch (block.path("type").asText()) {
                case "text" -> text.append(block.path("text").asText(""));
                case "tool_use" -> calls.add(new ToolCall(block.path("id").asText("call_" + calls.size()),
                        block.path("name").asText(""), block.path("input").toString()));
                default -> {
                    // Thinking and other blocks are not shown.
                }
            }
        }
        if (!text.isEmpty()) {
            listener.text(text.toString());
        }
        JsonNode usage = answer.path("usage");
        return new ModelReply(text.toString(), calls, finish(answer.path("stop_reason").asText(""), calls),
                new Usage(usage.path("input_tokens").asLong(0), usage.path("output_tokens").asLong(0)));
    }

    private ModelReply readStream(InputStream in, ModelListener listener) throws IOException {
        StringBuilder text = new StringBuilder();
        Map<Integer, String[]> calls = new TreeMap<>();
        String[] stop = {""};
        long[] tokens = {0, 0};
        boolean[] done = {false};
        ServerSentEvents.read(in, (name, data) -> {
            JsonNode e;
            try {
                e = json.readTree(data);
            } catch (IOException x) {
                throw http.malformed("a streamed event is not JSON: " + shorten(data));
            }
            switch (e.path("type").asText(name)) {
                case "message_start" -> tokens[0] = e.path("message").path("usage").path("input_tokens").asLong(0);
                case "content_block_start" -> {
                    JsonNode block = e.path("content_block");
                    if ("tool_use".equals(block.path("type").asText())) {
                        calls.put(e.path("index").asInt(), new String[]{block.path("id").asText(""),
                                block.path("name").asText(""), ""});
                        http.checkSize("", calls.size());
                    }
                }
                case "content_block_delta" -> {
                    JsonNode delta = e.path("delta");
                    switch (delta.path("type").asText()) {
                        case "text_delta" -> {
                            String piece = delta.path("text").asText("");
                            text.append(piece);
                            http.checkSize(text, calls.size());
                            if (!piece.isEmpty()) {
                                listener.text(piece);
                            }
                        }
                        case "input_json_delta" -> {
                            String[] call = calls.get(e.path("index").asInt());
                            if (call != null) {
                                call[2] += delta.path("partial_json").asText("");
                                http.checkSize(call[2], calls.size());
                            }
                        }
                        default -> {
                            // Thinking and signatures are not shown.
                        }
                    }
                }
                case "message_delta" -> {
                    if (e.path("delta").path("stop_reason").isTextual()) {
                        stop[0] = e.path("delta").path("stop_reason").asText();
                    }
                    tokens[1] = e.path("usage").path("output_tokens").asLong(tokens[1]);
                }
                case "message_stop" -> {
                    done[0] = true;
                    return false;
                }
                case "error" -> throw new ModelException(
                        "overloaded_error".equals(e.path("error").path("type").asText())
                                ? ModelException.Kind.SERVER_ERROR : ModelException.Kind.MALFORMED,
                        http.where() + " failed during the answer: " + e.path("error").path("message").asText(data));
                default -> {
                    // ping, and events added later
                }
            }
            return true;
        });
        if (!done[0]) {
            throw http.malformed("the stream ended before the answer did");
        }
        List<ToolCall> toolCalls = new ArrayList<>();
        for (String[] c : calls.values()) {
            toolCalls.add(new ToolCall(c[0].isEmpty() ? "call_" + toolCalls.size() : c[0], c[1],
                    c[2].isBlank() ? "{}" : c[2]));
        }
        return new ModelReply(text.toString(), toolCalls, finish(stop[0], toolCalls), new Usage(tokens[0], tokens[1]));
    }

    private static ModelReply.Finish finish(String reason, List<ToolCall> calls) {
        return switch (reason) {
            case "end_turn", "stop_sequence" -> calls.isEmpty() ? ModelReply.Finish.STOP : ModelReply.Finish.TOOL_CALLS;
            case "tool_use" -> ModelReply.Finish.TOOL_CALLS;
            case "max_tokens" -> ModelReply.Finish.LENGTH;
            case "refusal" -> ModelReply.Finish.FILTERED;
            default -> calls.isEmpty() ? ModelReply.Finish.OTHER : ModelReply.Finish.TOOL_CALLS;
        };
    }

    private static String shorten(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
