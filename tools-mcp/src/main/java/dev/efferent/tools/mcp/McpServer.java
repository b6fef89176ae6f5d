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
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One MCP server: a child process over stdio or a Streamable HTTP URL, its tools as Efferent tools, each call
 * bridged with progress and cancellation. A child gets a clean environment (PATH, HOME, USER, LOGNAME, SHELL,
 * TERM and what its {@code env} setting adds), never the host's secrets. A server that exits (or, over HTTP, stops answering) is
 * started again with backoff; its tools are unavailable meanwhile, and {@code changed} is told both times.
 */
final class McpServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(McpServer.class.getName());
    static final Duration LAST_RETRY = Duration.ofMinutes(1);
    static final int MAX_TOOLS = 100;
    static final int MAX_SCHEMA = 8_192;
    static final int MAX_DESCRIPTION = 1_024;
    /** A server that ran this long before it went is started again as quickly as a first time. */
    static final Duration STABLE = Duration.ofMinutes(1);
    /** A start that failed: what it says later is not heard. */
    private static final Link RETIRED = new Link(null, null, null);

    private final McpServerConfig config;
    private final McpJsonMapper mapper;
    private final JsonSchemaValidator validator;
    private final ObjectMapper json;
    private final Runnable changed;
    private final Map<Object, ToolContext> calls = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong();
    /** The running server, or null while it is being started again. */
    private volatile Link link;
    private volatile List<McpSchema.Tool> listed = List.of();
    private volatile boolean closed;
    private volatile Thread restarter;
    private volatile long upSince = System.nanoTime();
    /** How long the next restart waits; doubled by each failed try, back to the first after a stable run. */
    private Duration wait;

    /** One start of the server: the client, the transport that can cancel its calls, the process's if it is one. */
    private record Link(McpAsyncClient client, CancellingTransport transport, StdioClientTransport stdio) {
    }

    private McpServer(McpServerConfig config, McpJsonMapper mapper, JsonSchemaValidator validator, ObjectMapper json,
                      Runnable changed) {
        this.config = config;
        this.mapper = mapper;
        this.validator = validator;
        this.json = json;
        this.changed = changed;
        this.wait = config.restartDelay();
    }

    /**
     * Starts the server, says hello and lists its tools; fails with what the server or its command said, so a
     * wrong setting is seen at start-up rather than as tools that never come.
     */
    static McpServer start(McpServerConfig config, McpJsonMapper mapper, JsonSchemaValidator validator,
                           ObjectMapper json, Runnable changed) {
        McpServer server = new McpServer(config, mapper, validator, json, changed);
        server.link = server.connect();
        server.watch(server.link);
        return server;
    }

    String name() {
        return config.name();
    }

    private Link connect() {
        Transport choice = transport();
        CancellingTransport transport = new CancellingTransport(choice.transport());
        Link[] self = new Link[1];
        McpAsyncClient client = McpClient.async(transport)
                .clientInfo(McpSchema.Implementation.builder("efferent", "0.1.0").build())
                // Calls are bounded by their task's deadline, not by the SDK's 20 s default.
                .requestTimeout(Duration.ofDays(1))
                .initializationTimeout(config.start())
                .jsonSchemaValidator(validator)
                .progressConsumer(p -> {
                    progress(p);
                    return Mono.empty();
                })
                .toolsChangeConsumer(tools -> {
                    // From this start, while it is the one running or still starting; never from one replaced.
                    if (!closed && self[0] != RETIRED && (self[0] == null || self[0] == link)) {
                        LOG.log(Level.DEBUG, "MCP server {0} lists {1} tools", config.name(), tools.size());
                        listed = List.copyOf(tools);
                        changed.run();
                    }
                    return Mono.empty();
                })
                .build();
        try {
            client.initialize().block(config.start());
            listed = List.copyOf(client.listTools().block(config.start()).tools());
        } catch (RuntimeException e) {
            self[0] = RETIRED;
            client.close();
            throw new ToolException("MCP server '" + config.name() + "' (" + config.describe() + ") did not start: "
                    + message(e));
        }
        Link started = new Link(client, transport, choice.stdio());
        self[0] = started;
        return started;
    }

    /** Notices when the server of {@code running}, now the current one, goes away. */
    private void watch(Link running) {
        if (running.stdio() != null) {
            Thread.ofVirtual().name("mcp-" + config.name() + "-exit").start(() -> {
                running.stdio().awaitForExit();
                lost(running, "exited");
            });
        } else {
            Thread.ofVirtual().name("mcp-" + config.name() + "-ping").start(() -> ping(running));
        }
    }

    /** The transport to the server, and the same as stdio when the server is a child process. */
    private record Transport(McpClientTransport transport, StdioClientTransport stdio) {
    }

    private Transport transport() {
        if (config.url().isPresent()) {
            URI url = config.url().get();
            HttpRequest.Builder request = HttpRequest.newBuilder();
            config.headers().forEach(request::header);
            String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
            String base = url.getScheme() + "://" + url.getRawAuthority();
            HttpClientStreamableHttpTransport http = HttpClientStreamableHttpTransport.builder(base)
                    .endpoint(path + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery()))
                    .requestBuilder(request).jsonMapper(mapper).connectTimeout(config.start()).build();
            return new Transport(http, null);
        }
        ServerParameters params = ServerParameters.builder(config.command()).args(config.args()).env(config.env())
                .build();
        StdioClientTransport stdio = new StdioClientTransport(params, mapper) {
            @Override
            protected ProcessBuilder getProcessBuilder() {
                ProcessBuilder pb = new ProcessBuilder();
                // What the transport adds next (PATH, HOME, USER, … and the configured env) is all the server gets.
                pb.environment().clear();
                config.cwd().ifPresent(dir -> pb.directory(dir.toFile()));
                return pb;
            }
        };
        stdio.setStdErrorHandler(line -> LOG.log(Level.DEBUG, "MCP server {0}: {1}", config.name(), line));
        return new Transport(stdio, stdio);
    }

    /** Pings a server over HTTP now and then: one that stops answering is started again like a process that exits. */
    private void ping(Link watched) {
        while (!closed && link == watched) {
            try {
                Thread.sleep(config.ping());
                if (!closed && link == watched && !answers(watched)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The server of {@code gone} is gone: its tools are unavailable until a new start succeeds. */
    private void lost(Link gone, String why) {
        synchronized (this) {
            if (closed || link != gone) {
                return;
            }
            link = null;
        }
        LOG.log(Level.WARNING, "MCP server {0} {1}; its tools are unavailable until it is started again",
                config.name(), why);
        // Calls still waiting on it end now instead of at their deadlines.
        Thread.ofVirtual().start(() -> gone.client().close());
        changed.run();
        synchronized (this) {
            if (System.nanoTime() - upSince >= STABLE.toNanos()) {
                wait = config.restartDelay();
            }
            if (!closed) {
                restarter = Thread.ofVirtual().name("mcp-" + config.name() + "-restart").start(this::restart);
            }
        }
    }

    /**
     * Starts the server again after {@code restart-delay}, doubling the wait after each failed try up to a minute,
     * until it runs or the toolkit closes. A server that keeps dying soon after it starts keeps the long wait.
     */
    private void restart() {
        for (int attempt = 1; !closed; attempt++) {
            Duration delay;
            synchronized (this) {
                delay = wait;
                wait = wait.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY : wait.multipliedBy(2);
            }
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                return;
            }
            if (closed) {
                return;
            }
            Link started;
            try {
                started = connect();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "{0}; trying again in {1} s", e.getMessage(), wait.toSeconds());
                continue;
            }
            synchronized (this) {
                if (closed) {
                    started.client().close();
                    return;
                }
                link = started;
                upSince = System.nanoTime();
            }
            watch(started);
            LOG.log(Level.INFO, "MCP server {0} runs again (attempt {1}): {2} tools", config.name(), attempt,
                    listed.size());
            changed.run();
            return;
        }
    }

    /**
     * Its tools as last listed, named by {@code names}. What a server lists is not trusted to be small: past
     * {@link #MAX_TOOLS} tools, or with a schema over {@link #MAX_SCHEMA} characters, a tool is left out (and said
     * so); a description is cut at {@link #MAX_DESCRIPTION}.
     */
    List<Tool> tools(McpNames names) {
        List<Tool> tools = new ArrayList<>();
        List<McpSchema.Tool> all = listed;
        if (all.size() > MAX_TOOLS) {
            LOG.log(Level.WARNING, "MCP server {0} lists {1} tools; only the first {2} are offered", config.name(),
                    all.size(), MAX_TOOLS);
            all = all.subList(0, MAX_TOOLS);
        }
        for (McpSchema.Tool t : all) {
            String schema;
            try {
                schema = schema(t);
            } catch (ToolException e) {
                LOG.log(Level.WARNING, "{0}; the tool is left out", e.getMessage());
                continue;
            }
            if (schema.length() > MAX_SCHEMA) {
                LOG.log(Level.WARNING, "MCP server {0}: tool {1} is left out, its input schema has {2} characters "
                        + "(at most {3})", config.name(), t.name(), schema.length(), MAX_SCHEMA);
                continue;
            }
            String name = names.name(config.name(), t.name());
            ToolSpec spec = new ToolSpec(name, describe(t), schema, Placement.LOCAL, hints(t.annotations()));
            tools.add(new Tool() {
                @Override
                public ToolSpec spec() {
                    return spec;
                }

                @Override
                public ToolResult call(ToolParams params, ToolContext context) {
                    return McpServer.this.call(t.name(), params, context);
                }

                @Override
                public boolean available() {
                    return link != null;
                }

                @Override
                public String toString() {
                    return "Tool[" + name + "]";
                }
            });
        }
        return tools;
    }

    private String describe(McpSchema.Tool t) {
        String d = t.description() == null || t.description().isBlank() ? t.name() : t.description().strip();
        if (d.length() > MAX_DESCRIPTION) {
            d = d.substring(0, MAX_DESCRIPTION) + "…";
        }
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
        Link running = link;
        if (running == null) {
            throw new ToolException(closed ? "MCP server '" + config.name() + "' has been stopped"
                    : "MCP server '" + config.name() + "' is not running; it is being started again and its tools "
                    + "are back when it runs");
        }
        Object token = context.taskId() + "-" + tokens.incrementAndGet();
        calls.put(token, context);
        context.onCancel(() -> running.transport().cancel(token, "cancelled by Efferent"));
        try {
            McpSchema.CallToolRequest request = McpSchema.CallToolRequest.builder().name(tool)
                    .arguments(params.values()).progressToken(token).build();
            McpSchema.CallToolResult result = running.client().callTool(request).block(context.remaining());
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
            if (link != running) {
                throw new ToolException("MCP server '" + config.name() + "' stopped during the call to " + tool
                        + "; it is being started again");
            }
            if (!(e instanceof McpError)) {
                // No answer by the deadline (or none to come): the server need not go on with it.
                running.transport().cancel(token, "no answer in time");
            }
            if (config.url().isPresent() && !(e instanceof McpError)) {
                // Not an answer from the server but a failed exchange: see whether it is still there.
                Thread.ofVirtual().start(() -> answers(running));
            }
            throw new ToolException("MCP server '" + config.name() + "' failed on " + tool + ": " + message(e));
        } finally {
            calls.remove(token);
            running.transport().ended(token);
        }
    }

    /**
     * Whether the server of {@code running} still answers a ping; one that does not is lost. An error answer
     * (a server without ping, say) is an answer.
     */
    private boolean answers(Link running) {
        try {
            running.client().ping().block(config.start());
            return true;
        } catch (McpError e) {
            return true;
        } catch (RuntimeException e) {
            lost(running, "stopped answering (" + message(e) + ")");
            return false;
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
        Link running;
        Thread restarting;
        synchronized (this) {
            closed = true;
            running = link;
            link = null;
            restarting = restarter;
        }
        if (restarting != null) {
            // A start under way is closed by restart() itself once it sees closed; wait for that.
            restarting.interrupt();
            try {
                restarting.join(config.start().plusSeconds(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (running == null) {
            return;
        }
        try {
            running.client().closeGracefully().block(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "MCP server {0} did not close in 5 s: {1}", config.name(), message(e));
            running.client().close();
        }
    }
}
