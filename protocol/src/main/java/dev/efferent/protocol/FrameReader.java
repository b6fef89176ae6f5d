package dev.efferent.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Locale;
import java.util.Optional;

/**
 * Reads the fields of one decoded frame, refusing each missing, mistyped or out-of-range value with a
 * message that names the message type, the field and what was expected.
 */
final class FrameReader {
    private final String type;
    private final ObjectNode frame;
    private final String path;

    FrameReader(String type, ObjectNode frame) {
        this(type, frame, "");
    }

    private FrameReader(String type, ObjectNode frame, String path) {
        this.type = type;
        this.frame = frame;
        this.path = path;
    }

    String text(String field) {
        JsonNode node = required(field);
        if (!node.isTextual()) {
            throw mistyped(field, "a string", node);
        }
        if (node.textValue().isBlank()) {
            throw new ProtocolException(ErrorCode.OUT_OF_RANGE, prefix(field) + " must not be empty");
        }
        return node.textValue();
    }

    /** A string that may be empty; absent or null reads as empty. */
    String optionalText(String field) {
        JsonNode node = frame.get(field);
        if (node == null || node.isNull()) {
            return "";
        }
        if (!node.isTextual()) {
            throw mistyped(field, "a string", node);
        }
        return node.textValue();
    }

    Optional<String> textIfPresent(String field) {
        JsonNode node = frame.get(field);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isTextual()) {
            throw mistyped(field, "a string", node);
        }
        return Optional.of(node.textValue());
    }

    long integer(String field, long min, long max) {
        return checkRange(field, integerValue(field, required(field)), min, max);
    }

    long integer(String field, long min, long max, long defaultValue) {
        JsonNode node = frame.get(field);
        if (node == null || node.isNull()) {
            return defaultValue;
        }
        return checkRange(field, integerValue(field, node), min, max);
    }

    double number(String field) {
        JsonNode node = required(field);
        if (!node.isNumber()) {
            throw mistyped(field, "a number", node);
        }
        double value = node.doubleValue();
        if (!Double.isFinite(value)) {
            throw new ProtocolException(ErrorCode.OUT_OF_RANGE, prefix(field) + " must be a finite number, got "
                    + node.asText());
        }
        return value;
    }

    boolean bool(String field, boolean defaultValue) {
        JsonNode node = frame.get(field);
        if (node == null || node.isNull()) {
            return defaultValue;
        }
        if (!node.isBoolean()) {
            throw mistyped(field, "true or false", node);
        }
        return node.booleanValue();
    }

    boolean requiredBool(String field) {
        JsonNode node = required(field);
        if (!node.isBoolean()) {
            throw mistyped(field, "true or false", node);
        }
        return node.booleanValue();
    }

    ObjectNode object(String field) {
        JsonNode node = required(field);
        if (!node.isObject()) {
            throw mistyped(field, "an object", node);
        }
        return (ObjectNode) node;
    }

    Optional<ObjectNode> objectIfPresent(String field) {
        JsonNode node = frame.get(field);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isObject()) {
            throw mistyped(field, "an object", node);
        }
        return Optional.of((ObjectNode) node);
    }

    JsonNode array(String field) {
        JsonNode node = required(field);
        if (!node.isArray()) {
            throw mistyped(field, "an array", node);
        }
        return node;
    }

    /** A reader for an object nested in this frame, e.g. one element of {@code capabilities}. */
    FrameReader nested(String field, JsonNode node) {
        if (!node.isObject()) {
            throw mistyped(field, "an object", node);
        }
        return new FrameReader(type, (ObjectNode) node, path + field + ".");
    }

    ProtocolException outOfRange(String field, String expected, String actual) {
        return new ProtocolException(ErrorCode.OUT_OF_RANGE,
                prefix(field) + " must be " + expected + ", got " + actual);
    }

    String prefix(String field) {
        return type + ": field '" + path + field + "'";
    }

    private JsonNode required(String field) {
        JsonNode node = frame.get(field);
        if (node == null || node.isNull()) {
            throw new ProtocolException(ErrorCode.MISSING_FIELD, prefix(field) + " is missing");
        }
        return node;
    }

    private long integerValue(String field, JsonNode node) {
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw mistyped(field, "an integer", node);
        }
        return node.longValue();
    }

    private long checkRange(String field, long value, long min, long max) {
        if (value < min || value > max) {
            String expected = max == Long.MAX_VALUE ? "at least " + min : "from " + min + " to " + max;
            throw outOfRange(field, expected, Long.toString(value));
        }
        return value;
    }

    private ProtocolException mistyped(String field, String expected, JsonNode actual) {
        return new ProtocolException(ErrorCode.INVALID_FIELD,
                prefix(field) + " must be " + expected + ", got " + describe(actual));
    }

    /** A value from a frame, fit to quote in an error: control characters escaped, cut after 64 chars. */
    static String shorten(String value) {
        StringBuilder out = new StringBuilder();
        value.codePoints().limit(64).forEach(c -> {
            if (Character.isISOControl(c) || Character.getType(c) == Character.SURROGATE) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return value.length() > 64 ? out + "…(" + value.length() + " chars)" : out.toString();
    }

    static String describe(JsonNode node) {
        return switch (node.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> node.isIntegralNumber() ? "an integer" : "a number";
            case BOOLEAN -> "a boolean";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case NULL, MISSING -> "null";
            default -> node.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }
}
