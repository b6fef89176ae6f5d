package dev.efferent.model.scripted;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;

/**
 * A request the scripted server received.
 *
 * @param path    e.g. {@code /v1/chat/completions}
 * @param headers its headers, names in lower case (first value of each)
 * @param body    its JSON body
 * @param nanos   when it arrived, as {@link System#nanoTime()}
 */
public record Received(String path, Map<String, String> headers, JsonNode body, long nanos) {
    /** The content of the last message the client sent (a tool result's, or the person's text). */
    public String lastMessageText() {
        JsonNode messages = body.path("messages");
        JsonNode last = messages.path(messages.size() - 1);
        JsonNode content = last.path("content");
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode block : content) {
            if (block.path("content").isTextual()) {
                text.append(block.path("content").asText());
            } else if (block.path("content").isArray()) {
                block.path("content").forEach(c -> text.append(c.path("text").asText("")));
            } else {
                text.append(block.path("text").asText(""));
            }
        }
        return text.toString();
    }
}
