package dev.efferent.brain;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.config.Logs;
import dev.efferent.core.plugin.PluginException;
import dev.efferent.plugin.SettingsException;
import dev.efferent.queue.QueueException;
import io.helidon.config.Config;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The brain launcher: {@code bin/efferent brain [--config file] [--port n] [--hands]}. */
public final class BrainMain {
    private static final String USAGE = """
            Usage: efferent brain [options]

            Options:
              --config FILE       a YAML configuration file (see the README's configuration reference)
              --host ADDRESS      the address to listen on (default 127.0.0.1)
              --port N            the port (default 18789)
              --hands             let workers connect and run LOCAL tools (needs a worker secret)
              --secret-file FILE  a file holding the worker secret (or set EFFERENT_WORKER_SECRET)
              --token-file FILE   a file holding the API token (or set EFFERENT_API_TOKEN; default: one made
                                  once and kept in ~/.efferent/brain/api-token)
              --warm-up           start on a free loopback port with the memory queue, then stop at once
                                  (bin/brain runs this once to build its start-up cache)
              --help              show this help
            """;

    private static final String WARM_UP = "brain.warm-up";

    private BrainMain() {
    }

    /** Starts the brain and serves until the process is stopped; exits 2 on bad options or configuration. */
    public static void main(String[] args) {
        // Before the first logger: what the brain logs while it stops must not be lost.
        Logs.useShutdownLogManager();
        Config config;
        try {
            config = configure(args);
            Logs.setUp(config.get("log.level").asString().orElse("INFO"));
            Brain brain = new BrainAssembly(config).start();
            if (config.get(WARM_UP).asBoolean().orElse(false)) {
                brain.close();
                System.exit(0);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(brain::close, "efferent-brain-shutdown"));
        } catch (Help e) {
            System.out.print(USAGE);
            System.exit(e.getMessage().isEmpty() ? 0 : fail(e.getMessage()));
        } catch (ConfigException | PluginException | SettingsException e) {
            System.exit(fail(e.getMessage()));
        } catch (RuntimeException e) {
            // Typically the port is taken: say so plainly rather than with a stack trace.
            System.exit(fail("could not start: " + rootMessage(e)));
        }
    }

    static Config configure(String[] args) {
        Map<String, String> overrides = new HashMap<>();
        Optional<Path> file = Optional.empty();
        boolean warmUp = false;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            switch (option) {
                case "--help", "-h" -> throw new Help("");
                case "--hands" -> overrides.put("hands.enabled", "true");
                case "--warm-up" -> warmUp = true;
                case "--secret", "--token" -> throw new Help(option + " is not an option: a secret on the command "
                        + "line is shown by 'ps' to every user of this machine; use " + option + "-file FILE or the "
                        + "environment (EFFERENT_WORKER_SECRET, EFFERENT_API_TOKEN)");
                case "--config", "--host", "--port", "--secret-file", "--token-file" -> {
                    if (i + 1 >= args.length) {
                        throw new Help("option " + option + " needs a value");
                    }
                    String value = args[++i];
                    switch (option) {
                        case "--config" -> file = Optional.of(Path.of(value));
                        case "--host" -> overrides.put("server.host", value);
                        case "--secret-file" -> overrides.put("worker.secret-file", value);
                        case "--token-file" -> overrides.put("api.token-file", value);
                        default -> overrides.put("server.port", value);
                    }
                }
                default -> throw new Help("unknown option '" + option + "'");
            }
        }
        if (warmUp) {
            // What a start loads, and nothing it keeps or reaches: no database rows, no port a running brain holds
            // (after the options: a --port given too does not count), no chat channel polling its service.
            overrides.put(WARM_UP, "true");
            overrides.put("server.host", "127.0.0.1");
            overrides.put("server.port", "0");
            overrides.put("queue.provider", "memory");
            Config configured = file.map(f -> ConfigLoader.load(f, overrides, System.getenv(), Map.of()))
                    .orElseGet(() -> ConfigLoader.load(overrides, System.getenv(), Map.of()));
            configured.get("channels").asNodeList().orElse(List.of())
                    .forEach(channel -> overrides.put("channels." + channel.name() + ".enabled", "false"));
        }
        return file.map(f -> ConfigLoader.load(f, overrides, System.getenv(), Map.of()))
                .orElseGet(() -> ConfigLoader.load(overrides, System.getenv(), Map.of()));
    }

    private static int fail(String message) {
        System.err.println("efferent brain: " + message);
        return 2;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            if (t instanceof QueueException) {
                // The queue words its failures for the user, with what to do; its causes are the driver's.
                return t.getMessage();
            }
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    /** Bad command-line use; an empty message asks for the help text only. */
    private static final class Help extends ConfigException {
        Help(String message) {
            super(message);
        }
    }
}
