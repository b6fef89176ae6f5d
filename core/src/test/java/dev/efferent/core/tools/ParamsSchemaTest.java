package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ParamsSchemaTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode json(String text) throws Exception {
        return (ObjectNode) JSON.readTree(text);
    }

    @Test
    void paramsAreCheckedAgainstAWorkersSchema() throws Exception {
        ParamsSchema schema = ParamsSchema.compile(json("{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
                + "\"string\"}},\"required\":[\"path\"],\"$defs\":{\"p\":{\"type\":\"string\"}}}"));
        assertEquals(List.of(), schema.validate(json("{\"path\":\"a\"}")));
        assertEquals(List.of("$: required property 'path' not found"), schema.validate(json("{}")));
    }

    @Test
    void aSchemaThatWouldMakeTheBrainFetchAUrlIsRefused() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ParamsSchema.compile(json(
                "{\"type\":\"object\",\"properties\":{\"x\":{\"$ref\":\"http://127.0.0.1:9/evil.json\"}}}")));
        assertEquals("the input schema has $ref \"http://127.0.0.1:9/evil.json\" at $.properties.x; only references "
                + "within the schema (#/...) are allowed", e.getMessage());
        // An internal reference is fine, and a foreign $schema is not looked up.
        ParamsSchema ok = ParamsSchema.compile(json("{\"$schema\":\"http://127.0.0.1:9/meta\",\"type\":\"object\","
                + "\"properties\":{\"x\":{\"$ref\":\"#/$defs/p\"}},\"$defs\":{\"p\":{\"type\":\"string\"}}}"));
        assertTrue(ok.validate(json("{\"x\":5}")).getFirst().contains("integer"), ok.validate(json("{\"x\":5}")).toString());
    }
}
