package dev.efferent.model.spi;

import java.util.List;
import java.util.Objects;

/**
 * One call to a model.
 *
 * @param system   the system prompt: instructions from the program, never text from tools or pages
 * @param messages the conversation so far, oldest first
 * @param tools    the tools the model may call; empty for none
 */
public record ModelRequest(String system, List<ModelMessage> messages, List<ModelTool> tools) {
    public ModelRequest {
        Objects.requireNonNull(system, "system");
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
    }
}
