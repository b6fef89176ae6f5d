package dev.efferent.model.spi;

import java.util.Objects;

/**
 * A tool the model asks to call.
 *
 * @param id        the model's id for the call, echoed by the result
 * @param name      the tool's name, as the model wrote it (it may name no tool)
 * @param arguments the arguments as the model wrote them: JSON object text, though a model may write anything
 */
public record ToolCall(String id, String name, String arguments) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }
}
