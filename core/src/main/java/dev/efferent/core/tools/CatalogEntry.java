package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.plugin.PluginInfo;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolSpec;

import java.util.List;

/** One tool in the {@link ToolCatalog}: the tool, its parsed input schema and where it came from. */
public final class CatalogEntry {
    private final Tool tool;
    private final ToolSpec spec;
    private final String toolkit;
    private final PluginInfo origin;
    private final ObjectNode inputSchema;
    private final ParamsSchema validator;

    CatalogEntry(Tool tool, ToolSpec spec, String toolkit, PluginInfo origin, ObjectNode inputSchema,
                 ParamsSchema validator) {
        this.tool = tool;
        this.spec = spec;
        this.toolkit = toolkit;
        this.origin = origin;
        this.inputSchema = inputSchema;
        this.validator = validator;
    }

    /** The tool. */
    public Tool tool() {
        return tool;
    }

    /** The tool's spec, read once when the catalogue was built. */
    public ToolSpec spec() {
        return spec;
    }

    /** The tool's name. */
    public String name() {
        return spec.name();
    }

    /** The name of the toolkit that holds the tool. */
    public String toolkit() {
        return toolkit;
    }

    /** The module, version and jar the tool's toolkit came from. */
    public PluginInfo origin() {
        return origin;
    }

    /** The input schema as a JSON object (a copy). */
    public ObjectNode inputSchema() {
        return inputSchema.deepCopy();
    }

    /**
     * Checks params against the input schema.
     *
     * @return one message per problem, each naming the field, e.g. {@code "$.path: is missing but it is required"};
     * empty when the params are valid
     */
    public List<String> validate(JsonNode params) {
        return validator.validate(params);
    }
}
