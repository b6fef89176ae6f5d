package dev.efferent.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Objects;

/**
 * A tool as a worker advertises it in {@code worker:register}: MCP's tool shape plus Efferent's placement.
 *
 * @param name        unique tool name, e.g. {@code read_file}
 * @param description what the tool does, for people and models
 * @param inputSchema JSON Schema of the tool's params (an object schema)
 * @param placement   where the tool may run: {@code LOCAL}, {@code CLOUD} or {@code HYBRID}
 * @param readOnly    the tool does not change its environment
 * @param destructive the tool may destroy data
 * @param idempotent  calling it twice with the same params has no further effect
 * @param openWorld   the tool reaches beyond the machine (network, web pages)
 * @param origin      where the tool came from on the worker (module, version, jar), for people; may be empty
 */
public record ToolDescriptor(String name,
                             String description,
                             ObjectNode inputSchema,
                             String placement,
                             boolean readOnly,
                             boolean destructive,
                             boolean idempotent,
                             boolean openWorld,
                             String origin) {
    public ToolDescriptor {
        Objects.requireNonNull(origin, "origin");
        Checks.text(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
        Checks.text(placement, "placement");
    }

    /** A descriptor with no origin. */
    public ToolDescriptor(String name, String description, ObjectNode inputSchema, String placement, boolean readOnly,
                          boolean destructive, boolean idempotent, boolean openWorld) {
        this(name, description, inputSchema, placement, readOnly, destructive, idempotent, openWorld, "");
    }
}
