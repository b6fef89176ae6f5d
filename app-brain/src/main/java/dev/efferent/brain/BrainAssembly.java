package dev.efferent.brain;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.agent.Agent;
import dev.efferent.agent.AgentSettings;
import dev.efferent.agent.Models;
import dev.efferent.approvals.ApprovalSettings;
import dev.efferent.approvals.Approvals;
import dev.efferent.assistant.Extension;
import dev.efferent.calls.Gateway;
import dev.efferent.channel.spi.Channel;
import dev.efferent.conversations.ChatService;
import dev.efferent.conversations.ConversationStore;
import dev.efferent.conversations.MemoryConversationStore;
import dev.efferent.conversations.RecordedConversationStore;
import dev.efferent.core.channel.Channels;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.plugin.PluginLayers;
import dev.efferent.core.plugin.PluginRegistry;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.LocalTools;
import dev.efferent.model.spi.Model;
import dev.efferent.pairing.Pairing;
import dev.efferent.pairing.PairingCommands;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.spi.TaskQueueProvider;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import dev.efferent.scheduler.Automations;
import dev.efferent.scheduler.ScheduleCommands;
import dev.efferent.scheduler.Scheduler;
import dev.efferent.scheduler.SchedulerSettings;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import dev.efferent.tools.spi.Risk;
import io.helidon.config.Config;
import io.helidon.webserver.WebServer;

import java.lang.System.Logger.Level;
import java.lang.module.ModuleDescriptor;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The brain's composition root: builds its parts from the configuration in order (the queue, the tools, the router,
 * the approvals, the one {@link Gateway}, schedules, pairing, the agent, the conversations), then the
 * {@link BrainFeature}s its {@link BrainFeatureProvider}s make, then the web server. Each part is pushed on a
 * {@link Closers} stack as it is made: a start that fails closes what it had opened, and a stop closes the rest in
 * reverse. Only the assembly registers router listeners and chat channels.
 */
final class BrainAssembly {
    /** Messages a console shows again when it opens (a page reloaded), and a recorded conversation keeps at hand. */
    static final int HISTORY = 200;
    /** The owner of the brain's own namespaces in the store. */
    static final String OWNER = "efferent.brain";
    /** A router's thread on one event this long is stuck: no call gets through, so the brain is not ready. */
    static final Duration ROUTER_STUCK = Duration.ofSeconds(30);
        /** Read, never written, by the readiness probe. */
    private static final Namespace<String> READINESS = new Namespace<>("brain.readiness", Codec.text());
    private static final System.Logger LOG = System.getLogger(BrainAssembly.class.getName());
    /** Heaviest first, as Helidon orders its features; equal weights by name, so the order never depends on the jar. */
    private static final Comparator<BrainFeatureProvider> ORDER = Comparator
            .comparingDouble(BrainFeatureProvider::weight).reversed().thenComparing(BrainFeatureProvider::name);

    private final Config config;
    private final PluginRegistry<TaskQueueProvider> queues;
    private final PluginRegistry<BrainFeatureProvider> features;
    private final Clock clock = Clock.systemUTC();

    /** A brain as {@code config} (the root node) describes, with the queues and features on the module path. */
    BrainAssembly(Config config) {
        this(config, Queues.providers().build(), features().build());
    }

    /**
     * A brain from these providers: the test seam ({@code Queues.providers().add(...)}).
     *
     * @param config   the root configuration node
     * @param queues   the queue providers; {@code queue.provider} picks one
     * @param features the feature providers; each is built unless its node says {@code enabled: false}
     */
    BrainAssembly(Config config, PluginRegistry<TaskQueueProvider> queues,
                  PluginRegistry<BrainFeatureProvider> features) {
        this.config = config;
        this.queues = queues;
        this.features = features;
    }

    /** The feature providers on the module path. */
    static PluginRegistry.Builder<BrainFeatureProvider> features() {
        return PluginRegistry.<BrainFeatureProvider>builder("brain feature", BrainFeatureProvider::name)
                .discover(ServiceLoader.load(BrainFeatureProvider.class));
    }

    /** Starts the brain; fails with what to fix, having closed whatever it had opened. */
    Brain start() {
        RouterSettings routing = RouterSettings.from(config);
        BrainSettings settings = BrainSettings.from(config, routing.handsEnabled());
        Closers closers = new Closers();
        TaskQueue queue = Queues.open(config, queues, clock);
        closers.push("task queue", queue::close);
        try {
            // Beside the queue, durable where it is (decision 38): conversations, schedules, approvals, paired machines.
            Store records = Stores.open(config, Stores.providers().build(), clock);
            closers.push("store", records::close);
            return start(settings, routing, queue, records, closers);
        } catch (RuntimeException e) {
            throw closers.closeAfter(e);
        }
    }

    private Brain start(BrainSettings settings, RouterSettings routing, TaskQueue queue, Store records,
                        Closers closers) {
        PluginLayers plugins = PluginLayers.fromConfig(config);
        LocalToolExecutor tools = LocalTools.open(config, plugins);
        closers.push("local tools", tools::close);
        // Pushed before the router and set once the server runs: the router closes first, saying goodbye to each worker
        // (1001) over the server's sockets.
        AtomicReference<WebServer> server = new AtomicReference<>();
        closers.push("web server", () -> {
            WebServer running = server.get();
            if (running != null) {
                running.stop();
            }
        });
        ProtocolCodec codec = new ProtocolCodec(settings.maxFrameBytes());
        Router router = Router.start(routing, queue, records, tools, codec, clock);
        closers.push("router", router::close);
        BrainMetrics metrics = new BrainMetrics(router);
        closers.push("metrics", metrics::close);
        router.addListener(metrics);
        // With a durable store, conversations are kept in it (PostgreSQL: the queue's database).
        ConversationStore store = records.durable() ? new RecordedConversationStore(records, HISTORY)
                : new MemoryConversationStore();
        Optional<Model> model = Models.open(config);
        Approvals approvals = new Approvals(router, ApprovalSettings.from(new ConfigSettings(config.get("approvals"))),
                records, clock, (tool, params) -> params instanceof ObjectNode object ? tools.risk(tool, object)
                : Risk.UNJUDGED);
        closers.push("approvals", approvals::close);
        // The one front door: the agent, the conversations, schedules, the REST API and MCP all call through it.
        Gateway gateway = new Gateway(router, approvals);
        // Schedules are kept where conversations are: with PostgreSQL, every brain over it fires them, once.
        Scheduler scheduler = new Scheduler(gateway, records,
                SchedulerSettings.from(new ConfigSettings(config.get("scheduler"))), clock);
        Automations automations = new Automations(router, records, clock);
        // Paired machines are kept with the tasks if they outlive the process, else in the state directory: a machine
        // paired to a brain whose queue is in memory still gets in after a restart.
        Pairing pairing = Pairing.open(router, records, settings.stateDir().resolve("paired-workers.json"),
                () -> Brain.workerUrl(settings, server.get() == null ? settings.port() : server.get().port()), clock);
        closers.push("pairing", pairing::close);
        AgentSettings agentSettings = AgentSettings.from(new ConfigSettings(config.get("agent")));
        List<Extension> extensions = List.of(new ScheduleCommands(scheduler), automations,
                new PairingCommands(pairing, router));
        Agent agent = model.isPresent() ? new Agent(gateway, model.get(), agentSettings, records, clock, extensions)
                : new Agent(gateway, agentSettings, records, clock, extensions);
        closers.push("agent", agent::close);
        LOG.log(Level.INFO, model.map(m -> "Model: " + m.describe()).orElse("No language model configured: free "
                + "text is answered with how to set one (model.name, model.base-url); commands work"));
        ChatService chat = new ChatService(gateway, agent, store, config.get("chat.max-result-chars").asInt().orElse(1500),
                RouterSettings.duration(config, "chat.progress-interval", Duration.ofSeconds(3)), clock);
        closers.push("conversations", chat::close);
        router.addListener(chat);

        // The brain's one JSON mapper: the REST API, the console and its sockets.
        ObjectMapper json = new ObjectMapper();
        Views views = new Views(json);
        BearerToken apiToken = settings.apiToken().map(BearerToken::new).orElseGet(BearerToken::new);
        RequestGuard guard = new RequestGuard(settings.allowedHosts(), settings.allowedOrigins(), apiToken, views);
        WorkerCredentials workers = settings.workerSecret().map(secret -> new WorkerCredentials(secret, pairing))
                .orElseGet(() -> new WorkerCredentials(pairing));
        BrainContext context = new BrainContext(router, gateway, approvals, chat, scheduler, pairing, json, views, guard,
                apiToken, workers, codec, version());
        List<BrainFeature> served = features(context);
        for (BrainFeature feature : served) {
            feature.listeners().forEach(router::addListener);
            feature.channels().forEach(chat::add);
        }
        for (Channel channel : Channels.create(config, Channels.providers(plugins, PluginLayers.failOnError(config))
                .build())) {
            chat.add(channel);
        }
        // Schedules and automations start with the conversations (they are the agent's extensions) and hold no thread
        // before: pushed now, they stop first, before they could fire into conversations that are closing.
        closers.push("automations", automations::close);
        closers.push("scheduler", scheduler::close);
        chat.start();
        WebServer running = BrainServer.start(settings, guard, served, readiness(router, records));
        server.set(running);
        LOG.log(Level.INFO, "Brain listening on http://{0}:{1} ({2}); queue {3}; tools {4}", settings.host(),
                String.valueOf(running.port()), routing.handsEnabled() ? "hands enabled: workers connect to /ws/worker"
                        : "single-machine mode: tools run in this process",
                config.get("queue.provider").asString().orElse(Queues.DEFAULT_PROVIDER), tools.catalog().names());
        // The token itself is never logged: logs end up in journald, docker logs and CI output.
        settings.generatedTokenFile().ifPresent(file -> LOG.log(Level.INFO, "API token: kept in {0}, readable only by "
                + "this user; the web console at http://{1}:{2}/ asks for it (cat {0}), the terminal chat reads it by "
                + "itself", file, Brain.consoleHost(settings.host()), String.valueOf(running.port())));
        if (routing.handsEnabled() && settings.workerSecret().isEmpty()) {
            LOG.log(Level.INFO, "No worker.secret: machines join by pairing (bin/efferent pair, or /pair in the chat), "
                    + "each with a token of its own");
        }
        return new Brain(running, router, closers);
    }

    /** Builds the features that are on, heaviest first: the console's {@code /} takes whatever the others leave. */
    private List<BrainFeature> features(BrainContext context) {
        List<BrainFeature> built = new ArrayList<>();
        for (BrainFeatureProvider provider : features.all().stream().sorted(ORDER).toList()) {
            Config node = config.get(provider.name());
            if (provider.enabled(node)) {
                built.add(provider.create(node, context));
            } else {
                LOG.log(Level.INFO, "Not serving the brain feature ''{0}'': {0}.enabled is false", provider.name());
            }
        }
        return built;
    }

    /**
     * What the readiness probe asks: every part the brain cannot take work without. The queue answers a count
     * (PostgreSQL down: not ready); a store beside the queue adds its own check here.
     */
    static List<ReadinessCheck> readiness(Router router, Store store) {
        // A read of one key: it fails while the store's database does not answer.
        Space<String> probe = store.claim(READINESS, OWNER);
        return List.of(
                new ReadinessCheck("queue", () -> Map.of("queued", router.queuedCount())),
                new ReadinessCheck("store", () -> Map.of("durable", store.durable(),
                        "probe", probe.get("probe").isPresent())),
                new ReadinessCheck("router", () -> routerReady(router)));
    }

    /** The router's answer to the readiness probe; throws, for a 503, while it stops or while its thread is stuck. */
    private static Map<String, Object> routerReady(Router router) {
        if (router.stopping()) {
            throw new IllegalStateException("the brain is stopping");
        }
        Duration busy = router.busy();
        if (busy.compareTo(ROUTER_STUCK) > 0) {
            throw new IllegalStateException("the router's thread has been on one event for " + busy.toSeconds()
                    + " s, most likely a queue statement that does not answer");
        }
        return Map.of("workersOnline", router.workersOnline());
    }

    /** The brain's version, as its module says (the build's, for a development run). */
    private static String version() {
        return Optional.ofNullable(Brain.class.getModule().getDescriptor()).flatMap(ModuleDescriptor::rawVersion)
                .orElse("dev");
    }
}
