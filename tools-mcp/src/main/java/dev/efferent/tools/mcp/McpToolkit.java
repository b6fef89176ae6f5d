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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The MCP servers named in {@code tools.mcp.servers}, each started at once, their tools offered as
 * {@code <server>__<tool>}. A server that fails to start fails the toolkit, saying which and why; one that stops
 * later is started again, and the host is told whenever the tools change.
 */
final class McpToolkit implements Toolkit {
    /**
     * The SDK logs every server's greeting, instructions included, at INFO; only its warnings are kept unless the
     * logging configuration says otherwise. Held here, since java.util.logging forgets the level of a logger no one
     * references.
     */
    private static final Logger SDK_LOG = Logger.getLogger("io.modelcontextprotocol");

    static {
        if (SDK_LOG.getLevel() == null) {
            SDK_LOG.setLevel(Level.WARNING);
        }
    }

    private final List<McpServer> servers = new CopyOnWriteArrayList<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile List<Tool> tools = List.of();

    private McpToolkit() {
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
        McpToolkit toolkit = new McpToolkit();
        try {
            for (McpServerConfig config : McpServerConfig.all(settings)) {
                toolkit.servers.add(McpServer.start(config, mapper, none, json, toolkit::changed));
            }
        } catch (RuntimeException e) {
            toolkit.close();
            throw e;
        }
        toolkit.rebuild();
        return toolkit;
    }

    /** The tools of every server, in the order of {@code servers}, so names come out the same each time. */
    private synchronized void rebuild() {
        Set<String> taken = new LinkedHashSet<>();
        List<Tool> all = new ArrayList<>();
        for (McpServer server : servers) {
            all.addAll(server.tools(taken));
        }
        tools = List.copyOf(all);
    }

    private void changed() {
        rebuild();
        listeners.forEach(Runnable::run);
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
    public void onChange(Runnable changed) {
        listeners.add(changed);
    }

    @Override
    public void close() {
        servers.forEach(McpServer::close);
    }
}
