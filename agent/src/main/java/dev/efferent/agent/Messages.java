package dev.efferent.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.model.spi.ModelMessage;
import dev.efferent.model.spi.ToolCall;

import java.util.ArrayList;
import java.util.List;

/** Model messages as JSON, to keep them in records; and their size in tokens, estimated. */
final class Messages {
    private final ObjectMapper json;

    Messages(ObjectMapper json) {
        this.json = json;
    }

    ObjectNode toJson(ModelMessage m) {
        ObjectNode o = json.createObjectNode();
        switch (m) {
            case ModelMessage.User u -> o.put("role", "user").put("text", u.text());
            case ModelMessage.Assistant a -> {
                o.put("role", "assistant").put("text", a.text());
                ArrayNode calls = o.putArray("calls");
                a.toolCalls().forEach(c -> calls.addObject().put("id", c.id()).put("name", c.name())
                        .put("arguments", c.arguments()));
            }
            case ModelMessage.ToolResult r -> o.put("role", "tool").put("id", r.callId()).put("name", r.name())
                    .put("content", r.content()).put("error", r.error());
        }
        return o;
    }

    ModelMessage fromJson(JsonNode o) {
        return switch (o.path("role").asText()) {
            case "user" -> new ModelMessage.User(o.path("text").asText(""));
            case "assistant" -> {
                List<ToolCall> calls = new ArrayList<>();
                o.path("calls").forEach(c -> calls.add(new ToolCall(c.path("id").asText(), c.path("name").asText(),
                        c.path("arguments").asText("{}"))));
                yield new ModelMessage.Assistant(o.path("text").asText(""), calls);
            }
            case "tool" -> new ModelMessage.ToolResult(o.path("id").asText(), o.path("name").asText(),
                    o.path("content").asText(""), o.path("error").asBoolean());
            default -> throw new IllegalArgumentException("not a model message: " + o);
        };
    }

    ArrayNode toJson(List<ModelMessage> messages) {
        ArrayNode a = json.createArrayNode();
        messages.forEach(m -> a.add(toJson(m)));
        return a;
    }

    List<ModelMessage> fromJson(ArrayNode a) {
        List<ModelMessage> out = new ArrayList<>();
        a.forEach(o -> out.add(fromJson(o)));
        return out;
    }

    /** About four characters a token, plus a little for the message's frame. */
    static int tokens(ModelMessage m) {
        int chars = switch (m) {
            case ModelMessage.User u -> u.text().length();
            case ModelMessage.Assistant a -> a.text().length() + a.toolCalls().stream()
                    .mapToInt(c -> c.name().length() + c.arguments().length() + 20).sum();
            case ModelMessage.ToolResult r -> r.content().length() + 20;
        };
        return chars / 4 + 4;
    }

    static int tokens(String text) {
        return text.length() / 4 + 4;
    }
}
