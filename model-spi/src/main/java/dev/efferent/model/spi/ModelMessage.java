package dev.efferent.model.spi;

import java.util.List;
import java.util.Objects;

/** One message of a conversation with a model. */
public sealed interface ModelMessage {

    /** What the person wrote. */
    record User(String text) implements ModelMessage {
        public User {
            Objects.requireNonNull(text, "text");
        }
    }

    /** What the model answered: text, tool calls, or both. */
    record Assistant(String text, List<ToolCall> toolCalls) implements ModelMessage {
        public Assistant {
            Objects.requireNonNull(text, "text");
            toolCalls = List.copyOf(toolCalls);
        }
    }

    /**
     * The result of one tool call, sent back to the model as data (never as instructions).
     *
     * @param callId  the {@link ToolCall#id()} it answers
     * @param name    the tool's name
     * @param content the result's text
     * @param error   whether the call failed (the content says why)
     */
    record ToolResult(String callId, String name, String content, boolean error) implements ModelMessage {
        public ToolResult {
            Objects.requireNonNull(callId, "callId");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(content, "content");
        }
    }
}
