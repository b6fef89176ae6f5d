package dev.efferent.tools.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A call's params, a JSON object read as Java values: {@code String}, {@code Number}, {@code Boolean},
 * {@code List} and {@code Map}. The host has validated them against the tool's input schema, so a getter
 * fails only where the schema is looser than the tool.
 *
 * @param values the params by name; JSON nulls are left out
 */
public record ToolParams(Map<String, Object> values) {
    public ToolParams {
        values = Map.copyOf(values);
    }

    /** Params with nothing set. */
    public static ToolParams empty() {
        return new ToolParams(Map.of());
    }

    /** The required string param {@code name}. */
    public String string(String name) {
        return optionalString(name).orElseThrow(() -> new ToolException("missing required param '" + name + "'"));
    }

    /** The string param {@code name}, if present. */
    public Optional<String> optionalString(String name) {
        return typed(name, String.class, "a string");
    }

    /** The string param {@code name}, or {@code defaultValue}. */
    public String string(String name, String defaultValue) {
        return optionalString(name).orElse(defaultValue);
    }

    /** The integer param {@code name}, if present. */
    public Optional<Long> optionalInteger(String name) {
        return typed(name, Number.class, "an integer").map(n -> {
            if (n.doubleValue() != Math.rint(n.doubleValue())) {
                throw new ToolException("param '" + name + "' must be an integer, got " + n);
            }
            return n.longValue();
        });
    }

    /** The integer param {@code name}, or {@code defaultValue}. */
    public long integer(String name, long defaultValue) {
        return optionalInteger(name).orElse(defaultValue);
    }

    /** The boolean param {@code name}, or {@code defaultValue}. */
    public boolean bool(String name, boolean defaultValue) {
        return typed(name, Boolean.class, "true or false").orElse(defaultValue);
    }

    /** The list param {@code name}, empty if absent. */
    public List<?> list(String name) {
        return typed(name, List.class, "an array").map(l -> (List<?>) l).orElse(List.of());
    }

    private <T> Optional<T> typed(String name, Class<T> type, String expected) {
        Object value = values.get(name);
        if (value == null) {
            return Optional.empty();
        }
        if (!type.isInstance(value)) {
            throw new ToolException("param '" + name + "' must be " + expected + ", got '" + value + "'");
        }
        return Optional.of(type.cast(value));
    }
}
