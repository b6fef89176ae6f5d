package dev.efferent.tools.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.tools.spi.Content;
import dev.efferent.tools.spi.Placement;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One MCP server, run as a child process over stdio: its tools as Efferent tools, each call bridged with progress
 * and cancellation. The child gets a clean environment (PATH, HOME, LANG and what its {@code env} setting adds),
 * never the host's secrets.
 */
final class McpServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(McpServer.class.getName());

    private final McpServerConfig config;
    private final McpAsyncClient client;
    private final CancellingTransport transport;
    private final ObjectMapper json;
    private final Map<Object, ToolContext> calls = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong();
    private volatile boolean exited;

    private McpServer(McpServerConfig config, McpAsyncClient client, CancellingTransport transport, ObjectMapper json) {
        this.config = config;
        this.client = client;
        this.transport = transport;
        this.json = json;
    }

    /** Starts the server and says hello; fails with what the server or its command said. */
    static McpServer start(McpServerConfig config, McpJsonMapper mapper, JsonSchemaValidator validator,
                           ObjectMapper json) {
        ServerParameters params = ServerParameters.builder(config.command()).args(config.args()).env(config.env())
                .build();
        StdioClientTransport stdio = new StdioClientTransport(params, mapper) {
            @Override
            protected ProcessBuilder getProcessBuilder() {
                ProcessBuilder pb = new ProcessBuilder();
                // What the transport adds next (PATH, HOME, … and the configured env) is all the server gets.
                pb.environment().clear();
                config.cwd().ifPresent(dir -> pb.directory(dir.toFile()));
                return pb;
            }
        };
        stdio.setStdErrorHandler(line -> LOG.log(Level.DEBUG, "MCP server {0}: {1}", config.name(), line));
        CancellingTransport transport = new CancellingTransport(stdio);
        McpServer[] self = new McpServer[1];
        McpAsyncClient client = McpClient.async(transport)
                .clientInfo(McpSchema.Implementation.builder("efferent", "0.1.0").build())
                // Calls are bounded by their task's deadline, not by the SDK's 20 s default.
                .requestTimeout(Duration.ofDays(1))
                .initializationTimeout(config.start())
                .jsonSchemaValidator(validator)
                .progressConsumer(p -> {
                    if (self[0] != null) {
                        self[0].progress(p);
                    }
                    return Mono.empty();
                })
                .build();
        McpServer server = new McpServer(config, client, transport, json);
        self[0] = server;
        try {
            client.initialize().block(config.start());
        } catch (RuntimeException e) {
            client.close();
            throw new ToolException("MCP server '" + config.name() + "' (" + config.command() + " "
                    + String.join(" ", config.args()) + ") did not start: " + message(e));
        }
        Thread.ofVirtual().name("mcp-" + config.name() + "-exit").start(() -> {
            stdio.awaitForExit();
            server.exited = true;
            LOG.log(Level.WARNING, "MCP server {0} exited; its tools fail until the toolkit starts it again",
                    config.name());
        });
        return server;
    }

    /** Its tools, named so that none is in {@code taken} (which each name joins). */
    List<Tool> tools(Collection<String> taken) {
        List<Tool> tools = new ArrayList<>();
        McpSchema.ListToolsResult listed = client.listTools().block(config.start());
        for (McpSchema.Tool t : listed.tools()) {
            String name = McpNames.of(config.name(), t.name(), taken);
            taken.add(name);
            tools.add(Tool.of(new ToolSpec(name, describe(t), schema(t), Placement.LOCAL, hints(t.annotations())),
                    (params, context) -> call(t.name(), params, context)));
        }
        return tools;
    }

    private String describe(McpSchema.Tool t) {
        String d = t.description() == null || t.description().isBlank() ? t.name() : t.description().strip();
        return d + " (MCP server " + config.name() + ")";
    }

    private String schema(McpSchema.Tool t) {
        Map<String, Object> schema = new LinkedHashMap<>(t.inputSchema() == null ? Map.of() : t.inputSchema());
        schema.putIfAbsent("type", "object");
        try {
            return json.writeValueAsString(schema);
        } catch (JsonProcessingException e) {
            throw new ToolException("MCP server '" + config.name() + "' gave tool " + t.name() + " a schema that is "
                    + "not JSON: " + e.getOriginalMessage());
        }
    }

    /** The hints as MCP means them when a server leaves them out: not read-only, destructive, open-world. */
    private static ToolHints hints(McpSchema.ToolAnnotations a) {
        if (a == null) {
            return new ToolHints(false, true, false, true);
        }
        return new ToolHints(Boolean.TRUE.equals(a.readOnlyHint()), !Boolean.FALSE.equals(a.destructiveHint()),
                Boolean.TRUE.equals(a.idempotentHint()), !Boolean.FALSE.equals(a.openWorldHint()));
    }

    private ToolResult call(String tool, ToolParams params, ToolContext context) {
        if (exited) {
            throw new ToolException("MCP server '" + config.name() + "' has exited; its tools are back when it runs "
                    + "again");
        }
        Object token = context.taskId() + "-" + tokens.incrementAndGet();
        calls.put(token, context);
        context.onCancel(() -> transport.cancel(token, "cancelled by Efferent"));
        try {
            McpSchema.CallToolRequest request = McpSchema.CallToolRequest.builder().name(tool)
                    .arguments(params.values()).progressToken(token).build();
            McpSchema.CallToolResult result = client.callTool(request).block(context.remaining());
            if (result == null) {
                throw new ToolException("MCP server '" + config.name() + "' answered " + tool + " with nothing");
            }
            return result(result);
        } catch (ToolException e) {
            throw e;
        } catch (RuntimeException e) {
            if (context.isCancelled()) {
                throw new ToolException("cancelled; MCP server '" + config.name() + "' was told to stop");
            }
            transport.cancel(token, "no answer in time");
            throw new ToolException("MCP server '" + config.name() + "' failed on " + tool + ": " + message(e));
        } finally {
            calls.remove(token);
            transport.ended(token);
        }
    }

    private void progress(McpSchema.ProgressNotification p) {
        ToolContext context = calls.get(p.progressToken());
        if (context == null) {
            return;
        }
        int percent = p.total() != null && p.total() > 0 && p.progress() != null
                ? (int) Math.round(100 * p.progress() / p.total()) : 0;
        context.progress(percent, p.message() == null ? "" : p.message());
    }

    @SuppressWarnings("unchecked")
    private ToolResult result(McpSchema.CallToolResult r) {
        List<Content> content = new ArrayList<>();
        for (McpSchema.Content c : r.content() == null ? List.<McpSchema.Content>of() : r.content()) {
            switch (c) {
                case McpSchema.TextContent t -> content.add(new Content.Text(t.text()));
                case McpSchema.ImageContent i -> content.add(new Content.Image(i.mimeType(), i.data()));
                case McpSchema.EmbeddedResource e when e.resource() instanceof McpSchema.TextResourceContents t ->
                        content.add(new Content.Text(t.text()));
                default -> content.add(new Content.Text("[" + c.type() + " content, not shown]"));
            }
        }
        Map<String, Object> structured = r.structuredContent() instanceof Map<?, ?> m ? (Map<String, Object>) m
                : Map.of();
        return new ToolResult(content, structured, Boolean.TRUE.equals(r.isError()));
    }

    private static String message(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    @Override
    public void close() {
        try {
            client.closeGracefully().block(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "MCP server {0} did not close in 5 s: {1}", config.name(), message(e));
        }
    }
}
