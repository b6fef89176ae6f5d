/**
 * MCP servers as a toolkit: each server configured under {@code tools.mcp} (a command run over stdio, or a
 * Streamable HTTP URL) offers its tools as {@code <server>__<tool>}.
 *
 * @provides dev.efferent.tools.spi.ToolkitProvider
 */
module efferent.tools.mcp {
    requires efferent.tools.spi;
    requires io.modelcontextprotocol.sdk.mcp.core;
    requires io.modelcontextprotocol.sdk.mcp.json.jackson2;
    requires reactor.core;
    requires java.net.http;
    requires java.logging;
    requires com.fasterxml.jackson.databind;

    provides dev.efferent.tools.spi.ToolkitProvider
            with dev.efferent.tools.mcp.McpToolkitProvider;
}
