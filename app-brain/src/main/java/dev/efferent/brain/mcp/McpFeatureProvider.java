package dev.efferent.brain.mcp;

import dev.efferent.brain.BrainContext;
import dev.efferent.brain.BrainFeature;
import dev.efferent.brain.BrainFeatureProvider;
import io.helidon.config.Config;

/** Finds the brain's MCP endpoint at {@code /mcp}; its node is {@code mcp} ({@code mcp.enabled: false} turns it off). */
public final class McpFeatureProvider implements BrainFeatureProvider {
    @Override
    public String name() {
        return "mcp";
    }

    @Override
    public double weight() {
        return 300;
    }

    @Override
    public BrainFeature create(Config node, BrainContext context) {
        return new McpFeature(context.gateway(), context.apiToken(), context.json(), context.version());
    }
}
