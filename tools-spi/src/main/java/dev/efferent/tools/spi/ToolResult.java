package dev.efferent.tools.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What a tool returns, in MCP's shape.
 *
 * @param content    text and images for people and models
 * @param structured optional machine-readable result: a JSON object made of maps, lists, strings, numbers,
 *                   booleans; empty when the tool gives none
 * @param isError    the tool ran but reports a failure the caller can act on
 */
public record ToolResult(List<Content> content, Map<String, Object> structured, boolean isError) {
    public ToolResult {
        content = List.copyOf(content);
        Objects.requireNonNull(structured, "structured");
    }

    /** A successful text result. */
    public static ToolResult text(String text) {
        return new ToolResult(List.of(new Content.Text(text)), Map.of(), false);
    }

    /** A successful result with text and structured content. */
    public static ToolResult of(String text, Map<String, Object> structured) {
        return new ToolResult(List.of(new Content.Text(text)), structured, false);
    }

    /** A result that reports a failure. */
    public static ToolResult error(String text) {
        return new ToolResult(List.of(new Content.Text(text)), Map.of(), true);
    }

    /** The text content, joined by newlines. */
    public String text() {
        return content.stream()
                .filter(Content.Text.class::isInstance)
                .map(c -> ((Content.Text) c).text())
                .collect(Collectors.joining("\n"));
    }
}
