package dev.efferent.brain;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.agent.Agent;
import dev.efferent.agent.AgentSettings;
import dev.efferent.agent.Models;
import dev.efferent.approvals.ApprovalSettings;
import dev.efferent.approvals.Approvals;
import dev.efferent.brain.console.ConsoleChannel;
import dev.efferent.brain.mcp.McpFeature;
import dev.efferent.calls.Gateway;
import dev.efferent.channel.spi.Channel;
import dev.efferent.conversations.ChatService;
import dev.efferent.conversations.ConversationStore;
import dev.efferent.conversations.MemoryConversationStore;
import dev.efferent.conversations.RecordedConversationStore;
import dev.efferent.core.channel.Channels;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.plugin.PluginLayers;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.LocalTools;
import dev.efferent.model.spi.Model;
import dev.efferent.pairing.Pairing;
import dev.efferent.pairing.PairingCommands;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.TaskQueue;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import dev.efferent.scheduler.Automations;
import dev.efferent.scheduler.ScheduleCommands;
import dev.efferent.scheduler.Scheduler;
import dev.efferent.scheduler.SchedulerSettings;
import dev.efferent.store.Store;
import io.helidon.common.socket.SocketOptions;
import io.helidon.config.Config;
import io.helidon.health.HealthCheckResponse;
import io.helidon.health.HealthCheckType;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import io.helidon.webserver.websocket.WsConfig;
import io.helidon.webserver.websocket.WsRouting;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A running brain: the queue, the tools of this process, the router, and the web server that serves workers,
 * the REST API and the observability endpoints.
 */
final class Brain implements AutoCloseable {
    /** Messages a console shows again when it opens (a page reloaded). */
    private static final int HISTORY = 200;
    private static final System.Logger LOG = System.getLogger(Brain.class.getName());

    private final TaskQueue queue;
    private final Store records;
    private final LocalToolExecutor tools;
    private final Router router;
    private final BrainMetrics metrics;
    private final Approvals approvals;
    private final Agent agent;
    private final Scheduler scheduler;
    private final Automations automations;
    private final ChatService chat;
    private final Pairing pairing;
    private final WebServer server;

    private Brain(TaskQueue queue, Store records, LocalToolExecutor tools, Router router, BrainMetrics metrics,
                  Approvals approvals, Agent agent, Scheduler scheduler, Automations automations, ChatService chat,
                  Pairing pairing, WebServer server) {
        this.pairing = pairing;
        this.scheduler = scheduler;
        this.automations = automations;
        this.approvals = approvals;
        this.agent = agent;
        this.queue = queue;
        this.records = records;
        this.tools = tools;
        this.router = router;
        this.metrics = metrics;
        this.chat = chat;
        this.server = server;
    }

    /** Starts a brain as {@code config} (the root node) describes. */
    static Brain start(Config config) {
        RouterSettings routing = RouterSettings.from(config);
        BrainSettings settings = BrainSettings.from(config, routing.handsEnabled());
        TaskQueue queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        Store records = null;
        LocalToolExecutor tools = null;
        Router router = null;
        BrainMetrics metrics = null;
        Approvals approvals = null;
        Agent agent = null;
        Scheduler scheduler = null;
        Automations automations = null;
        ChatService chat = null;
        Pairing pairing = null;
        try {
            // Beside the queue: PostgreSQL's when the queue is there (store.provider chooses otherwise).
            records = Stores.open(config, Stores.providers().build(), Clock.systemUTC());
            PluginLayers plugins = PluginLayers.fromConfig(config);
            tools = LocalTools.open(config, plugins);
            ProtocolCodec codec = new ProtocolCodec(settings.maxFrameBytes());
            router = Router.start(routing, queue, records, Optional.of(tools), codec, Clock.systemUTC());
            metrics = new BrainMetrics(router);
            router.addListener(metrics);
            // With a durable store, conversations are kept beside the tasks (PostgreSQL: the same database).
            ConversationStore store = records.durable() ? new RecordedConversationStore(records, HISTORY)
                    : new MemoryConversationStore();
            Optional<Model> model = Models.open(config);
            LocalToolExecutor ownTools = tools;
            approvals = new Approvals(router, ApprovalSettings.from(new ConfigSettings(config.get("approvals"))),
                    records, Clock.systemUTC(), (tool, params) -> params.isObject()
                    ? ownTools.risk(tool, (com.fasterxml.jackson.databind.node.ObjectNode) params)
                    : dev.efferent.tools.spi.Risk.UNJUDGED);
            // Schedules are kept where conversations are: with PostgreSQL, every brain over it fires them, once.
            Gateway gateway = new Gateway(router, approvals);
            scheduler = new Scheduler(gateway, records, SchedulerSettings.from(new ConfigSettings(config.get("scheduler"))),
                    Clock.systemUTC());
            automations = new Automations(router, records, Clock.systemUTC());
            // Paired machines are kept with the tasks if they outlive the process, else in the state directory:
            // a machine paired to a brain whose queue is in memory still gets in after a restart.
            java.util.concurrent.atomic.AtomicInteger port = new java.util.concurrent.atomic.AtomicInteger(settings.port());
            pairing = Pairing.open(router, records, settings.stateDir().resolve("paired-workers.json"),
                    () -> workerUrl(settings, port.get()), Clock.systemUTC());
            agent = new Agent(router, model, AgentSettings.from(new ConfigSettings(config.get("agent"))), approvals,
                    records, Clock.systemUTC(), List.of(new ScheduleCommands(scheduler), automations,
                    new PairingCommands(pairing, router)));
            LOG.log(Level.INFO, model.map(m -> "Model: " + m.describe()).orElse("No language model configured: free "
                    + "text is answered with how to set one (model.name, model.base-url); commands work"));
            chat = new ChatService(gateway, agent, store,
                    config.get("chat.max-result-chars").asInt().orElse(1500),
                    RouterSettings.duration(config, "chat.progress-interval", Duration.ofSeconds(3)), Clock.systemUTC());
            ChatService conversations = chat;
            // The brain's one JSON mapper: the REST API, the console and its sockets.
            ObjectMapper json = new ObjectMapper();
            Approvals held = approvals;
            Pairing paired = pairing;
            ConsoleChannel console = new ConsoleChannel(router, c -> conversations.history(c, HISTORY), json,
                    id -> held.lastWord(id), paired::paired);
            chat.add(console);
            // REST conversations are read through the API; the channel is there so that they count as reachable.
            chat.add(new ApiChannel());
            for (Channel channel : Channels.create(config, Channels.providers(plugins,
                    PluginLayers.failOnError(config)).build())) {
                chat.add(channel);
            }
            chat.start();
            WebServer server = server(settings, routing, router, metrics, codec, console, chat, approvals, scheduler,
                    pairing, json);
            port.set(server.port());
            LOG.log(Level.INFO, "Brain listening on http://{0}:{1} ({2}); queue {3}; tools {4}", settings.host(),
                    String.valueOf(server.port()), routing.handsEnabled() ? "hands enabled: workers connect to /ws/worker"
                            : "single-machine mode: tools run in this process",
                    config.get("queue.provider").asString().orElse(Queues.DEFAULT_PROVIDER), tools.catalog().names());
            // The token itself is never logged: logs end up in journald, docker logs and CI output.
            settings.generatedTokenFile().ifPresent(file -> LOG.log(Level.INFO, "API token: kept in {0}, readable "
                    + "only by this user; the web console at http://{1}:{2}/ asks for it (cat {0}), the terminal chat "
                    + "reads it by itself", file, consoleHost(settings.host()), String.valueOf(server.port())));
            if (routing.handsEnabled() && settings.workerSecret().isEmpty()) {
                LOG.log(Level.INFO, "No worker.secret: machines join by pairing (bin/efferent pair, or /pair in the "
                        + "chat), each with a token of its own");
            }
            return new Brain(queue, records, tools, router, metrics, approvals, agent, scheduler, automations, chat,
                    pairing, server);
        } catch (RuntimeException e) {
            if (chat != null) {
                chat.close();
            }
            if (scheduler != null) {
                scheduler.close();
            }
            if (automations != null) {
                automations.close();
            }
            if (agent != null) {
                agent.close();
            }
            if (pairing != null) {
                pairing.close();
            }
            if (approvals != null) {
                approvals.close();
            }
            if (router != null) {
                router.close();
            }
            if (metrics != null) {
                metrics.close();
            }
            if (tools != null) {
                tools.close();
            }
            if (records != null) {
                records.close();
            }
            queue.close();
            throw e;
        }
    }

    private static WebServer server(BrainSettings settings, RouterSettings routing, Router router,
                                    BrainMetrics metrics, ProtocolCodec codec, ConsoleChannel console,
                                    ChatService chat, Approvals approvals, Scheduler scheduler, Pairing pairing,
                                    ObjectMapper json) {
        BearerToken apiToken = new BearerToken(settings.apiToken());
        WorkerCredentials workers = new WorkerCredentials(settings.workerSecret(), Optional.of(pairing));
        Views views = new Views(json);
        RequestGuard guard = new RequestGuard(settings.allowedHosts(), settings.allowedOrigins(), apiToken, views);
        // In order: the console's "/" takes whatever the others leave.
        List<BrainFeature> features = List.of(new ApiFeature(router, chat, approvals, scheduler, pairing, apiToken,
                        json),
                new McpFeature(router, approvals, apiToken, json, version()),
                new WorkerSocketFeature(router, workers, codec, guard, views, routing.handsEnabled()),
                new ConsoleFeature(console, apiToken, guard, views));
        var builder = WebServer.builder()
                .host(settings.host())
                .port(settings.port())
                .maxPayloadSize(4L * settings.maxFrameBytes())
                // Workers send accepted, progress and result as small frames back to back: without TCP_NODELAY
                // each waits for the previous one's delayed ACK (about 40 ms).
                .connectionOptions(SocketOptions.builder().tcpNoDelay(true).build())
                .addFeature(ObserveFeature.builder()
                        .addObserver(HealthObserver.builder()
                                .details(true)
                                .addCheck(() -> HealthCheckResponse.builder().status(true)
                                        .detail("queued", router.queuedCount())
                                        .detail("workersOnline", router.workersOnline())
                                        .build(), HealthCheckType.READINESS, "router")
                                .build())
                        .addObserver(MetricsObserver.create())
                        .build())
                .routing(r -> {
                    r.addFilter(guard);
                    features.forEach(f -> f.http(r));
                });
        WsRouting.Builder sockets = WsRouting.builder();
        features.forEach(f -> f.sockets(sockets));
        // A frame whose header announces more than the limit is refused from the header, unread: the WebSocket
        // layer closes the link with 1009 (it gives no way to answer with an error frame first). Conforming peers
        // never send one; a message in fragments gets frame_too_large at its first fragment over (WorkerEndpoint).
        builder.addProtocol(WsConfig.builder().maxFrameLength(settings.maxFrameBytes()).build())
                .addRouting(sockets);
        return builder.build().start();
    }

    /** The brain's version, as its module says (the build's, for a development run). */
    private static String version() {
        return Brain.class.getModule().getDescriptor() == null ? "dev" : Brain.class.getModule().getDescriptor()
                .rawVersion().orElse("dev");
    }

    /**
     * How another machine reaches this brain's worker socket, for the command printed with a pairing code:
     * {@code brain.public-url} if set, else this machine's name when listening on every interface.
     */
    static String workerUrl(BrainSettings settings, int port) {
        if (settings.publicUrl().isPresent()) {
            return settings.publicUrl().get().replaceFirst("^(?i)http", "ws").replaceAll("/+$", "");
        }
        String host = settings.host();
        if (host.equals("0.0.0.0") || host.equals("::")) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.net.UnknownHostException e) {
                host = "<this-brain's-address>";
            }
        }
        return "ws://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    private static String consoleHost(String host) {
        return host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host.contains(":") ? "[" + host + "]" : host;
    }

    int port() {
        return server.port();
    }

    Router router() {
        return router;
    }

    @Override
    public void close() {
        try {
            LOG.log(Level.INFO, "Brain stopping: {0} workers online, {1} tasks queued", router.workersOnline(),
                    router.queuedCount());
        } catch (RuntimeException e) {
            LOG.log(Level.INFO, "Brain stopping (the queue cannot be counted: {0})", e.getMessage());
        }
        scheduler.close();
        automations.close();
        chat.close();
        agent.close();
        pairing.close();
        approvals.close();
        router.close();
        server.stop();
        metrics.close();
        tools.close();
        records.close();
        queue.close();
        LOG.log(Level.INFO, "Brain stopped");
    }
}
