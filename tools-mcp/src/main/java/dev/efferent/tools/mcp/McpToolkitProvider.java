package dev.efferent.tools.mcp;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;

/** The toolkit {@code mcp}: the MCP servers named in {@code tools.mcp.servers}. */
public final class McpToolkitProvider implements ToolkitProvider {
    @Override
    public String name() {
        return "mcp";
    }

    @Override
    public Toolkit create(Settings settings) {
        return McpToolkit.start(settings);
    }
}
