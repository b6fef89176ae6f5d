package dev.efferent.model.spi;

import java.util.List;
import java.util.Objects;

/**
 * A model's whole answer to one call.
 *
 * @param text      its text (what was streamed, joined); may be empty
 * @param toolCalls the tools it calls, in order; empty when it answered
 * @param finish    why it stopped
 * @param usage     the tokens the call used, as the server counted them
 */
public record ModelReply(String text, List<ToolCall> toolCalls, Finish finish, Usage usage) {
    public ModelReply {
        Objects.requireNonNull(text, "text");
        toolCalls = List.copyOf(toolCalls);
        Objects.requireNonNull(finish, "finish");
        Objects.requireNonNull(usage, "usage");
    }

    /** Why a model stopped writing. */
    public enum Finish {
        /** It finished its answer. */
        STOP,
        /** It calls tools and waits for their results. */
        TOOL_CALLS,
        /** It ran out of output tokens. */
        LENGTH,
        /** The server's content filter stopped it. */
        FILTERED,
        /** Another reason, or none given. */
        OTHER
    }
}
