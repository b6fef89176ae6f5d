package dev.efferent.worker;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.config.HomePath;
import dev.efferent.core.config.Secrets;
import dev.efferent.plugin.SettingsException;
import io.helidon.config.Config;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The worker's settings, from {@code worker.*} (command-line options override configuration).
 *
 * @param brainUrls            {@code worker.brain-urls}: brains to connect to, tried in turn
 * @param secret               {@code worker.secret}: the shared worker secret, if set
 * @param pairCode             {@code --pair}: a one-time code to exchange for this machine's own token
 * @param name                 {@code worker.name}: the name users see; default the host name
 * @param maxConcurrency       {@code worker.max-concurrency}: tasks run at once (default 4)
 * @param stateDir             {@code worker.state-dir}: the worker id and result journal (default ~/.efferent/worker)
 * @param maxReconnectAttempts {@code worker.reconnect.max-attempts}: 0 (the default) means never give up
 * @param reconnectInitial     {@code worker.reconnect.initial}: first reconnect delay (default 1s)
 * @param reconnectMax         {@code worker.reconnect.max}: longest reconnect delay (default 30s)
 * @param brainTimeout         {@code worker.brain-timeout}: silence from the brain (no frame, ping or pong) after
 *                             which the link is considered dead (default 3s); the worker pings a link that has
 *                             been quiet for a third of it, at most 1s, and the brain answers every ping
 * @param shutdownGrace        {@code worker.shutdown-grace}: at SIGTERM, how long running tasks may take to finish
 *                             before they are handed back to the brain (default 30s)
 * @param registerTimeout      {@code worker.register-timeout}: how long a connection attempt may take, from
 *                             opening the socket to {@code worker:ack}, before it is given up (default 10s)
 */
record WorkerSettings(List<URI> brainUrls,
                      Optional<String> secret,
                      Optional<String> pairCode,
                      String name,
                      int maxConcurrency,
                      Path stateDir,
                      int maxReconnectAttempts,
                      Duration reconnectInitial,
                      Duration reconnectMax,
                      Duration brainTimeout,
                      Duration registerTimeout,
                      Duration shutdownGrace) {
    private static final Set<String> SCHEMES = Set.of("ws", "wss", "http", "https");

    static WorkerSettings from(Config config) {
        ConfigSettings s = new ConfigSettings(config.get("worker"));
        List<String> urls = s.list("brain-urls");
        if (urls.isEmpty()) {
            throw new ConfigException("no brain to connect to: pass --brain-url ws://<brain-host>:18789 "
                    + "(or set worker.brain-urls / EFFERENT_WORKER_BRAIN__URLS)");
        }
        List<URI> uris = urls.stream().map(WorkerSettings::uri).toList();
        // Which credential is used (a paired token, kept in the state directory, or this secret) is Credential's call.
        Optional<String> secret = Secrets.read(config.get("worker"), "secret");
        Optional<String> pairCode = s.get("pair-code").map(String::strip).filter(c -> !c.isEmpty());
        try {
            int max = (int) s.getLong("max-concurrency", 4);
            if (max < 1 || max > 1024) {
                throw new ConfigException("worker.max-concurrency must be from 1 to 1024, got " + max);
            }
            int attempts = (int) s.getLong("reconnect.max-attempts", 0);
            if (attempts < 0) {
                throw new ConfigException("worker.reconnect.max-attempts must be 0 (unlimited) or more, got " + attempts);
            }
            return new WorkerSettings(uris, secret, pairCode, s.get("name").orElseGet(WorkerSettings::hostname), max,
                    s.get("state-dir").map(HomePath::of)
                            .orElse(Path.of(System.getProperty("user.home"), ".efferent", "worker")),
                    attempts,
                    s.getDuration("reconnect.initial", Duration.ofSeconds(1)),
                    s.getDuration("reconnect.max", Duration.ofSeconds(30)),
                    positive(s, "brain-timeout", Duration.ofSeconds(3)),
                    positive(s, "register-timeout", Duration.ofSeconds(10)),
                    s.getDuration("shutdown-grace", Duration.ofSeconds(30)));
        } catch (SettingsException e) {
            throw new ConfigException(e.getMessage(), e);
        }
    }

    private static Duration positive(ConfigSettings s, String key, Duration defaultValue) {
        Duration d = s.getDuration(key, defaultValue);
        if (d.isNegative() || d.isZero()) {
            throw new ConfigException("worker." + key + " must be longer than 0, got '" + s.get(key).orElse("") + "'");
        }
        return d;
    }

    private static URI uri(String value) {
        URI uri;
        try {
            uri = URI.create(value.strip());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("brain URL '" + value + "' is not a valid URL: " + e.getMessage());
        }
        if (uri.getScheme() == null || !SCHEMES.contains(uri.getScheme()) || uri.getHost() == null) {
            throw new ConfigException("brain URL '" + value + "' must look like ws://host:18789 or wss://host");
        }
        return uri;
    }

    static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "worker";
        }
    }
}
