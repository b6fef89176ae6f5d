package dev.efferent.model.spi;

import java.util.Objects;

/**
 * A tool offered to the model.
 *
 * @param name        its name
 * @param description what it does, for the model
 * @param inputSchema its arguments' JSON Schema, as JSON object text
 */
public record ModelTool(String name, String description, String inputSchema) {
    public ModelTool {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
    }
}
