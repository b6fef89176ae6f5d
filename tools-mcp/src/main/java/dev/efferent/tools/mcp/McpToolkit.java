package dev.efferent.tools.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.Toolkit;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The MCP servers named in {@code tools.mcp.servers}, each started at once, their tools offered as
 * {@code <server>__<tool>}. A server that fails to start fails the toolkit, saying which and why.
 */
final class McpToolkit implements Toolkit {
    private final List<McpServer> servers;
    private final List<Tool> tools;

    private McpToolkit(List<McpServer> servers, List<Tool> tools) {
        this.servers = servers;
        this.tools = tools;
    }

    static McpToolkit start(Settings settings) {
        ObjectMapper json = new ObjectMapper();
        var mapper = new JacksonMcpJsonMapper(json);
        // The SDK checks a tool's structured output against its output schema only when asked to; it is not.
        JsonSchemaValidator none = new JsonSchemaValidator() {
            @Override
            public ValidationResponse validate(Map<String, Object> schema, Object structuredContent) {
                return ValidationResponse.asValid(null);
            }
        };
        List<McpServer> servers = new ArrayList<>();
        List<Tool> tools = new ArrayList<>();
        Set<String> taken = new LinkedHashSet<>();
        try {
            for (McpServerConfig config : McpServerConfig.all(settings)) {
                McpServer server = McpServer.start(config, mapper, none, json);
                servers.add(server);
                tools.addAll(server.tools(taken));
            }
        } catch (RuntimeException e) {
            servers.forEach(McpServer::close);
            throw e;
        }
        return new McpToolkit(List.copyOf(servers), List.copyOf(tools));
    }

    @Override
    public String name() {
        return "mcp";
    }

    @Override
    public List<Tool> tools() {
        return tools;
    }

    @Override
    public void close() {
        servers.forEach(McpServer::close);
    }
}
