package dev.efferent.model.openai;

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

/** {@code POST /chat/completions}, streamed as server-sent events or answered whole. */
final class OpenAiModel implements Model {
    private final ObjectMapper json = new ObjectMapper();
    private final ModelSettings settings;
    private final ModelHttp http;
    private final boolean openAi;

    OpenAiModel(ModelSettings settings) {
        this.settings = settings;
        this.openAi = "api.openai.com".equals(settings.baseUrl().getHost());
        this.http = new ModelHttp(settings, "model.api-key (EFFERENT_MODEL_API__KEY) or OPENAI_API_KEY", json);
    }

    @Override
    public String describe() {
        return settings.describe();
    }

    @Override
    public ModelReply complete(ModelRequest request, ModelListener listener) {
        Map<String, String> headers = new HashMap<>();
        settings.apiKey().ifPresent(key -> headers.put("Authorization", "Bearer " + key));
        String body = body(request).toString();
        return http.post("/chat/completions", headers, body,
                in -> settings.stream() ? readStream(in, listener) : readWhole(in, listener));
    }

    ObjectNode body(ModelRequest request) {
        // OpenAI's own API takes max_completion_tokens (its newer models refuse max_tokens); other servers max_tokens.
        ObjectNode b = json.createObjectNode().put("model", settings.name())
                .put(openAi ? "max_completion_tokens" : "max_tokens", settings.maxTokens());
        settings.temperature().ifPresent(t -> b.put("temperature", t));
        ArrayNode messages = b.putArray("messages");
        if (!request.system().isEmpty()) {
            messages.addObject().put("role", "system").put("content", request.system());
        }
        for (ModelMessage m : request.messages()) {
            switch (m) {
                case ModelMessage.User u -> messages.addObject().put("role", "user").put("content", u.text());
                case ModelMessage.Assistant a -> {
                    ObjectNode o = messages.addObject().put("role", "assistant");
                    if (a.text().isEmpty() && !a.toolCalls().isEmpty()) {
                        o.putNull("content");
                    } else {
                        o.put("content", a.text());
                    }
                    if (!a.toolCalls().isEmpty()) {
                        ArrayNode calls = o.putArray("tool_calls");
                        for (ToolCall c : a.toolCalls()) {
                            calls.addObject().put("id", c.id()).put("type", "function").putObject("function")
                                    .put("name", c.name()).put("arguments", c.arguments());
                        }
                    }
                }
                // The protocol has no error flag: the content says it.
                case ModelMessage.ToolResult r -> messages.addObject().put("role", "tool").put("tool_call_id", r.callId())
                        .put("content", r.error() ? "Error: " + r.content() : r.content());
            }
        }
        if (!request.tools().isEmpty()) {
            ArrayNode tools = b.putArray("tools");
            for (ModelTool t : request.tools()) {
                ObjectNode f = tools.addObject().put("type", "function").putObject("function")
                        .put("name", t.name()).put("description", t.description());
                f.set("parameters", schema(t));
            }
        }
        if (settings.stream()) {
            b.put("stream", true).putObject("stream_options").put("include_usage", true);
        }
        return b;
    }

    private JsonNode schema(ModelTool t) {
        try {
            return json.readTree(t.inputSchema());
        } catch (IOException e) {
            throw new IllegalArgumentException("the input schema of tool " + t.name() + " is not JSON", e);
        }
    }

    private ModelReply readWhole(InputStream in, ModelListener listener) throws IOException {
        JsonNode answer = json.readTree(in);
        JsonNode choice = answer == null ? null : answer.path("choices").path(0);
        if (choice == null || choice.isMissingNode()) {
            throw http.malformed("no choices in " + shorten(String.valueOf(answer)));
        }
        JsonNode message = choice.path("message");
        String text = message.path("content").asText("");
        if (!text.isEmpty()) {
            listener.text(text);
        }
        List<ToolCall> calls = new ArrayList<>();
        for (JsonNode c : message.path("tool_calls")) {
            calls.add(call(c.path("id").asText(""), c.path("function").path("name").asText(""),
                    arguments(c.path("function").path("arguments")), calls.size()));
        }
        return new ModelReply(text, calls, finish(choice.path("finish_reason").asText(""), calls),
                usage(answer.path("usage")));
    }

    private ModelReply readStream(InputStream in, ModelListener listener) throws IOException {
        StringBuilder text = new StringBuilder();
        // Fragments of each tool call, joined by the index the server gives them.
        Map<Integer, String[]> calls = new TreeMap<>();
        String[] finish = {""};
        Usage[] usage = {Usage.NONE};
        boolean[] done = {false};
        ServerSentEvents.read(in, (name, data) -> {
            if (data.strip().equals("[DONE]")) {
                done[0] = true;
                return false;
            }
            JsonNode chunk;
            try {
                chunk = json.readTree(data);
            } catch (IOException e) {
                throw http.malformed("a streamed chunk is not JSON: " + shorten(data));
            }
            if (chunk.has("error")) {
                throw new ModelException(ModelException.Kind.SERVER_ERROR, http.where() + " failed during the answer: "
                        + chunk.path("error").path("message").asText(chunk.path("error").toString()));
            }
            if (chunk.path("usage").isObject()) {
                usage[0] = usage(chunk.path("usage"));
            }
            JsonNode choice = chunk.path("choices").path(0);
            JsonNode delta = choice.path("delta");
            String content = delta.path("content").asText("");
            if (!content.isEmpty()) {
                text.append(content);
                http.checkSize(text, calls.size());
                listener.text(content);
            }
            for (JsonNode c : delta.path("tool_calls")) {
                int index = c.path("index").asInt(calls.size());
                String[] call = calls.computeIfAbsent(index, i -> new String[]{"", "", ""});
                http.checkSize("", calls.size());
                if (c.path("id").isTextual()) {
                    call[0] = c.path("id").asText();
                }
                JsonNode f = c.path("function");
                // The name comes whole, in the call's first fragment; some servers repeat it in every one.
                if (f.path("name").isTextual() && call[1].isEmpty()) {
                    call[1] = f.path("name").asText();
                }
                if (f.path("arguments").isTextual()) {
                    call[2] += f.path("arguments").asText();
                    http.checkSize(call[2], calls.size());
                }
            }
            if (choice.path("finish_reason").isTextual()) {
                finish[0] = choice.path("finish_reason").asText();
            }
            return true;
        });
        if (!done[0] && finish[0].isEmpty()) {
            throw http.malformed("the stream ended before the answer did");
        }
        List<ToolCall> toolCalls = new ArrayList<>();
        for (String[] c : calls.values()) {
            toolCalls.add(call(c[0], c[1], c[2], toolCalls.size()));
        }
        return new ModelReply(text.toString(), toolCalls, finish(finish[0], toolCalls), usage[0]);
    }

    /** Some servers send no call id: one is made up, since the result must name it. */
    private static ToolCall call(String id, String name, String arguments, int index) {
        return new ToolCall(id.isEmpty() ? "call_" + index : id, name, arguments.isBlank() ? "{}" : arguments);
    }

    /** Arguments are JSON text in OpenAI's API; some servers send an object instead. */
    private static String arguments(JsonNode node) {
        return node.isTextual() ? node.asText() : node.isMissingNode() || node.isNull() ? "{}" : node.toString();
    }

    private static ModelReply.Finish finish(String reason, List<ToolCall> calls) {
        return switch (reason) {
            case "stop" -> calls.isEmpty() ? ModelReply.Finish.STOP : ModelReply.Finish.TOOL_CALLS;
            case "tool_calls", "function_call" -> ModelReply.Finish.TOOL_CALLS;
            case "length" -> ModelReply.Finish.LENGTH;
            case "content_filter" -> ModelReply.Finish.FILTERED;
            default -> calls.isEmpty() ? ModelReply.Finish.OTHER : ModelReply.Finish.TOOL_CALLS;
        };
    }

    private static Usage usage(JsonNode u) {
        return new Usage(u.path("prompt_tokens").asLong(0), u.path("completion_tokens").asLong(0));
    }

    private static String shorten(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
