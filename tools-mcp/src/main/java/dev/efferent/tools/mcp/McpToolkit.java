package dev.efferent.tools.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.Toolkit;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
    private static final System.Logger LOG = System.getLogger(McpToolkit.class.getName());
    /** Changes that come close together are taken as one, so a server cannot flood the host with them. */
    static final long SETTLE_MILLIS = 300;
    /** The most characters of schemas and descriptions all servers together may offer (a worker's list is sent whole). */
    static final int MAX_TOTAL = 512 * 1024;

    static {
        if (SDK_LOG.getLevel() == null) {
            SDK_LOG.setLevel(Level.WARNING);
        }
    }

    private final List<McpServer> servers = new CopyOnWriteArrayList<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final McpNames names = new McpNames();
    private final ScheduledExecutorService changes = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("mcp-changes").daemon().factory());
    private final AtomicBoolean pending = new AtomicBoolean();
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

    /** The tools of every server, in the order of {@code servers}, within {@link #MAX_TOTAL}. */
    private synchronized void rebuild() {
        List<Tool> all = new ArrayList<>();
        long size = 0;
        for (McpServer server : servers) {
            for (Tool tool : server.tools(names)) {
                size += tool.spec().inputSchema().length() + tool.spec().description().length();
                if (size > MAX_TOTAL) {
                    LOG.log(System.Logger.Level.WARNING, "MCP tool {0} and those after it are left out: the servers'' "
                            + "tools together are over {1} characters of schemas and descriptions",
                            tool.spec().name(), MAX_TOTAL);
                    tools = List.copyOf(all);
                    return;
                }
                all.add(tool);
            }
        }
        tools = List.copyOf(all);
    }

    /** A server's tools changed: read them again once things settle, on this toolkit's thread, then tell the host. */
    private void changed() {
        if (pending.compareAndSet(false, true)) {
            try {
                changes.schedule(() -> {
                    pending.set(false);
                    rebuild();
                    for (Runnable listener : listeners) {
                        try {
                            listener.run();
                        } catch (RuntimeException e) {
                            LOG.log(System.Logger.Level.WARNING, "A listener for the MCP tools' changes failed", e);
                        }
                    }
                }, SETTLE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // Closed: nothing to tell.
                pending.set(false);
            }
        }
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
        changes.shutdownNow();
        servers.forEach(McpServer::close);
    }
}
