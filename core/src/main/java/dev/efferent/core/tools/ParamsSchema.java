package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaException;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.PathType;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * An input schema that came from elsewhere (a worker's registration), compiled once so that the params of every
 * call can be checked against it before the call is sent. Only self-contained schemas are accepted: a
 * {@code $ref} to anything but a place in the same schema would make the brain fetch a URL a stranger chose.
 */
public final class ParamsSchema {
    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder()
            .pathType(PathType.JSON_PATH).build();

    private final JsonSchema validator;

    private ParamsSchema(JsonSchema validator) {
        this.validator = validator;
    }

    /**
     * Compiles {@code schema}.
     *
     * @throws IllegalArgumentException naming what is wrong: a {@code $ref} that leaves the schema, or a schema
     *                                  the validator cannot compile
     */
    public static ParamsSchema compile(ObjectNode schema) {
        checkSelfContained(schema, "$");
        ObjectNode copy = schema.deepCopy();
        // The meta-schema is always 2020-12 here; a "$schema" URL of the sender's choice is not looked up.
        copy.remove("$schema");
        try {
            JsonSchema validator = SCHEMAS.getSchema(copy, CONFIG);
            validator.initializeValidators();
            return new ParamsSchema(validator);
        } catch (JsonSchemaException | IllegalArgumentException | IllegalStateException e) {
            throw new IllegalArgumentException("the input schema cannot be compiled: " + e.getMessage(), e);
        }
    }

    /** One message per problem, each naming the field; empty when {@code params} are valid. */
    public List<String> validate(JsonNode params) {
        return validator.validate(params).stream()
                .sorted(Comparator.comparing((ValidationMessage m) -> m.getInstanceLocation().toString())
                        .thenComparing(ValidationMessage::getMessage))
                .map(ValidationMessage::getMessage)
                .toList();
    }

    private static void checkSelfContained(JsonNode node, String path) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                if ((field.getKey().equals("$ref") || field.getKey().equals("$dynamicRef"))
                        && !(field.getValue().isTextual() && field.getValue().textValue().startsWith("#"))) {
                    throw new IllegalArgumentException("the input schema has " + field.getKey() + " "
                            + field.getValue() + " at " + path + "; only references within the schema (#/...) are "
                            + "allowed");
                }
                checkSelfContained(field.getValue(), path + "." + field.getKey());
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                checkSelfContained(node.get(i), path + "[" + i + "]");
            }
        }
    }
}
