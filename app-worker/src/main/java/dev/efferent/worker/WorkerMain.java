package dev.efferent.worker;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.config.Logs;
import dev.efferent.core.plugin.PluginException;
import dev.efferent.plugin.SettingsException;
import dev.efferent.core.plugin.PluginLayers;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.LocalTools;
import dev.efferent.protocol.ProtocolCodec;
import io.helidon.config.Config;

import java.lang.System.Logger.Level;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** The worker launcher: {@code bin/efferent worker --brain-url ws://host:18789 [--secret-file FILE] …}. */
public final class WorkerMain {
    static {
        // Before the first logger: what the worker logs while it stops (SIGTERM) must not be lost.
        Logs.useShutdownLogManager();
    }

    private static final System.Logger LOG = System.getLogger(WorkerMain.class.getName());
    private static final String USAGE = """
            Usage: efferent worker --brain-url ws://<brain-host>:18789 [options]

            Options:
              --brain-url URL            a brain to connect to; repeat for several brains (failover)
              --pair CODE                join with a one-time code from the brain (bin/efferent pair, or /pair);
                                         the token it gets is kept in the state directory for next time
              --secret-file FILE         a file holding the brain's worker secret (or set EFFERENT_WORKER_SECRET)
              --name NAME                the name users see (default: this host's name)
              --root DIR                 a directory tools may touch; repeat for several (default: your home)
              --max-concurrency N        tasks run at once (default 4)
              --state-dir DIR            worker id and result journal (default ~/.efferent/worker)
              --max-reconnect-attempts N give up after N failed attempts (default 0: never)
              --plugins-dir DIR          load tool plugins from DIR (repeatable; default ~/.efferent/plugins)
              --deny RULE                refuse calls this rule covers, whatever the brain allows (repeatable),
                                         e.g. --deny 'run_shell if command~.*rm -rf.*'
              --deny-file FILE           more such rules, one a line
              --config FILE              a YAML configuration file
              --warm-up                  load the configuration, plugins and tools, then exit without connecting
                                         (bin/worker runs this once to build its start-up cache)
              --help                     show this help
            """;

    private static final Set<String> OPTIONS = Set.of("--brain-url", "--pair", "--secret-file", "--name",
            "--root", "--max-concurrency", "--state-dir", "--max-reconnect-attempts", "--config", "--plugins-dir", "--deny",
            "--deny-file");

    private WorkerMain() {
    }

    /** Starts the worker; exits 2 on bad options or configuration, 1 if it gives up reconnecting. */
    public static void main(String[] args) {
        boolean warmUp = List.of(args).contains("--warm-up");
        Config config;
        try {
            config = configure(warmUp ? List.of(args).stream().filter(a -> !a.equals("--warm-up")).toArray(String[]::new) : args);
        } catch (UsageException e) {
            System.out.print(USAGE);
            // A warm-up that only showed the help warmed up nothing: no start-up cache is made from it.
            System.exit(e.getMessage().isEmpty() && !warmUp ? 0 : fail(e.getMessage().isEmpty() ? "nothing to warm up" : e.getMessage()));
            return;
        } catch (ConfigException e) {
            System.exit(fail(e.getMessage()));
            return;
        }
        Logs.setUp(config.get("log.level").asString().orElse("INFO"));
        try {
            WorkerSettings settings = WorkerSettings.from(config);
            // The WebSocket client's classes load on the other core while the tools start: a third of a start.
            Thread.ofVirtual().name("efferent-preload").start(() -> BrainSession.preload(settings.brainUrls().getFirst()));
            LocalToolExecutor executor = LocalTools.open(config, PluginLayers.fromConfig(config));
            LocalRules rules = LocalRules.from(config, settings.name(), executor);
            if (warmUp) {
                warmUp(settings, executor, config, rules);
                return;
            }
            String workerId = WorkerIdentity.load(settings.stateDir());
            Credential credential = Credential.resolve(settings, workerId);
            Worker worker = new Worker(settings, workerId, credential, executor,
                    new ProtocolCodec(config.get("protocol.max-frame-bytes").asInt().orElse(1 << 20)), rules);
            if (!rules.rules().isEmpty()) {
                LOG.log(Level.INFO, "This machine's own rules, which the brain cannot loosen: {0}", rules.rules());
            }
            LOG.log(Level.INFO, "Worker {0} starting: tools {1} under {2}, {3} slots", settings.name(),
                    executor.catalog().names(), executor.roots(), settings.maxConcurrency());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                worker.close();
                executor.close();
            }, "efferent-worker-shutdown"));
            System.exit(worker.run() ? 0 : 1);
        } catch (ConfigException | PluginException | SettingsException e) {
            System.exit(fail(e.getMessage()));
        }
    }

    /**
     * A start, a connection and a registration, against a stand-in brain on loopback and with a state directory of
     * its own, then a stop: the classes this loads are the ones bin/worker's start-up cache holds (an AOT cache,
     * JDK 25+). Neither the real brain nor this worker's state directory is touched.
     */
    private static void warmUp(WorkerSettings settings, LocalToolExecutor executor, Config config, LocalRules rules) {
        ProtocolCodec codec = new ProtocolCodec(config.get("protocol.max-frame-bytes").asInt().orElse(1 << 20));
        Path state = null;
        boolean acknowledged = false;
        try (WarmUpBrain brain = new WarmUpBrain(codec)) {
            state = Files.createTempDirectory("efferent-warm-up");
            WorkerSettings trial = new WorkerSettings(List.of(brain.uri()), Optional.of("warm-up"), Optional.empty(),
                    settings.name(), settings.maxConcurrency(), state, 1, settings.reconnectInitial(),
                    settings.reconnectMax(), settings.brainTimeout(), settings.registerTimeout(),
                    settings.shutdownGrace());
            Worker worker = new Worker(trial, "warm-up", new Credential("warm-up", false), executor, codec, rules);
            Thread run = Thread.ofPlatform().name("efferent-warm-up").start(worker::run);
            acknowledged = brain.awaitAcknowledged(10_000);
            worker.close();
            run.join(5_000);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "The warm-up could not run: {0}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            executor.close();
            deleteQuietly(state);
        }
        System.exit(acknowledged ? 0 : 1);
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.log(Level.WARNING, "The warm-up left {0}: {1}", dir, e.toString());
        }
    }

    static Config configure(String[] args) {
        Map<String, String> overrides = new HashMap<>();
        List<String> brains = new ArrayList<>();
        List<String> roots = new ArrayList<>();
        List<String> pluginDirs = new ArrayList<>();
        List<String> denies = new ArrayList<>();
        Optional<Path> file = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            if (option.equals("--help") || option.equals("-h")) {
                throw new UsageException("");
            }
            if (!option.startsWith("--")) {
                throw new UsageException("unexpected argument '" + option + "'");
            }
            String name = option.contains("=") ? option.substring(0, option.indexOf('=')) : option;
            if (name.equals("--secret")) {
                throw new UsageException("--secret is gone: a secret on the command line is shown by 'ps' to every "
                        + "user of this machine. Set EFFERENT_WORKER_SECRET or pass --secret-file FILE");
            }
            if (!OPTIONS.contains(name)) {
                throw new UsageException("unknown option '" + name + "'");
            }
            String value;
            if (option.contains("=")) {
                value = option.substring(option.indexOf('=') + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new UsageException("option " + name + " needs a value");
            }
            switch (name) {
                case "--brain-url" -> brains.add(value);
                case "--secret-file" -> overrides.put("worker.secret-file", value);
                case "--pair" -> overrides.put("worker.pair-code", value);
                case "--name" -> overrides.put("worker.name", value);
                case "--root" -> roots.add(value);
                case "--max-concurrency" -> overrides.put("worker.max-concurrency", value);
                case "--state-dir" -> overrides.put("worker.state-dir", value);
                case "--max-reconnect-attempts" -> overrides.put("worker.reconnect.max-attempts", value);
                case "--config" -> file = Optional.of(Path.of(value));
                case "--plugins-dir" -> pluginDirs.add(value);
                case "--deny" -> denies.add(value);
                case "--deny-file" -> overrides.put("worker.deny-file", value);
                default -> throw new UsageException("unknown option '" + name + "'");
            }
        }
        if (!brains.isEmpty()) {
            overrides.put("worker.brain-urls", String.join(",", brains));
        }
        if (!denies.isEmpty()) {
            // One rule per --deny; a rule may hold commas, so they are not joined into one value.
            for (int n = 0; n < denies.size(); n++) {
                overrides.put("worker.deny." + n, denies.get(n));
            }
        }
        if (!pluginDirs.isEmpty()) {
            overrides.put("plugins.dirs", String.join(",", pluginDirs));
        }
        if (!roots.isEmpty()) {
            overrides.put("tools.roots", String.join(",", roots));
        }
        return file.map(f -> ConfigLoader.load(f, overrides, System.getenv(), Map.of()))
                .orElseGet(() -> ConfigLoader.load(overrides, System.getenv(), Map.of()));
    }

    private static int fail(String message) {
        System.err.println("efferent worker: " + message);
        return 2;
    }

    /** Bad command-line use; an empty message asks for the help text only. */
    static final class UsageException extends ConfigException {
        UsageException(String message) {
            super(message);
        }
    }
}
