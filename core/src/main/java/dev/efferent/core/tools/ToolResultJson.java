package dev.efferent.core.tools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.tools.spi.Content;
import dev.efferent.tools.spi.ToolResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A {@link ToolResult} as JSON in MCP's {@code CallToolResult} shape, the form results travel and are stored in. */
public final class ToolResultJson {
    /** The core module's one JSON mapper (thread-safe once configured). */
    static final ObjectMapper MAPPER = new ObjectMapper();

    private ToolResultJson() {
    }

    /** {@code {"content": [...], "structuredContent": {...}, "isError": false}}. */
    public static ObjectNode toJson(ToolResult result) {
        ObjectNode json = MAPPER.createObjectNode();
        ArrayNode content = json.putArray("content");
        for (Content c : result.content()) {
            switch (c) {
                case Content.Text t -> content.addObject().put("type", "text").put("text", t.text());
                case Content.Image i -> content.addObject().put("type", "image").put("data", i.data())
                        .put("mimeType", i.mimeType());
            }
        }
        if (!result.structured().isEmpty()) {
            json.set("structuredContent", MAPPER.valueToTree(result.structured()));
        }
        json.put("isError", result.isError());
        return json;
    }

    /** Reads a result back; unknown content types are kept as their JSON text. */
    @SuppressWarnings("unchecked")
    public static ToolResult fromJson(JsonNode json) {
        return read(json);
    }

    /**
     * A result as the router stored it (JSON text of a {@code CallToolResult}); text that is not one, which would be a
     * bug, is logged and taken as the text it is.
     */
    public static ToolResult stored(String json) {
        try {
            return read(MAPPER.readTree(json));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            System.getLogger(ToolResultJson.class.getName()).log(System.Logger.Level.WARNING,
                    "A stored result is not a tool result ({0}); taken as text", e.getMessage());
            return ToolResult.text(json);
        }
    }

    private static ToolResult read(JsonNode json) {
        List<Content> content = new ArrayList<>();
        for (JsonNode c : json.path("content")) {
            if ("image".equals(c.path("type").asText())) {
                content.add(new Content.Image(c.path("mimeType").asText(), c.path("data").asText()));
            } else if ("text".equals(c.path("type").asText())) {
                content.add(new Content.Text(c.path("text").asText()));
            } else {
                content.add(new Content.Text(c.toString()));
            }
        }
        Map<String, Object> structured = json.has("structuredContent") && json.get("structuredContent").isObject()
                ? MAPPER.convertValue(json.get("structuredContent"), Map.class) : Map.of();
        return new ToolResult(content, structured, json.path("isError").asBoolean(false));
    }

    /** The text content of a stored result, joined by newlines. */
    public static String text(JsonNode json) {
        return fromJson(json).text();
    }
}
