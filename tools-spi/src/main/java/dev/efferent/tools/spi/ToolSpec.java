package dev.efferent.tools.spi;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a tool is: its name, description, JSON-Schema input, placement and hints.
 *
 * @param name        unique name: lower case letters, digits and underscores, starting with a letter
 * @param description one or two sentences for people and models
 * @param inputSchema JSON Schema (draft 2020-12) of the params, as JSON text; an object schema
 * @param placement   where the tool may run
 * @param hints       how the tool behaves
 */
public record ToolSpec(String name, String description, String inputSchema, Placement placement, ToolHints hints) {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    public ToolSpec {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("tool name '" + name
                    + "' is invalid: use 1 to 64 lower case letters, digits and underscores, starting with a letter");
        }
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
        Objects.requireNonNull(placement, "placement");
        Objects.requireNonNull(hints, "hints");
    }

    /** A LOCAL tool with the given schema and hints. */
    public static ToolSpec local(String name, String description, String inputSchema, ToolHints hints) {
        return new ToolSpec(name, description, inputSchema, Placement.LOCAL, hints);
    }
}
