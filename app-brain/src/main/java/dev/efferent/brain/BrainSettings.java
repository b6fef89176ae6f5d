package dev.efferent.brain;

import dev.efferent.core.config.ConfigException;
import io.helidon.config.Config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The brain server's settings.
 *
 * @param host          {@code server.host}: the address to listen on (default 127.0.0.1)
 * @param port          {@code server.port}: the port (default 18789; 0 picks a free one)
 * @param workerSecret  {@code worker.secret}: what workers send as {@code Authorization: Bearer …}
 * @param apiToken      {@code api.token}: what REST clients send as {@code Authorization: Bearer …}
 * @param maxFrameBytes {@code protocol.max-frame-bytes}: largest worker frame accepted (default 1 MiB)
 */
record BrainSettings(String host, int port, Optional<String> workerSecret, Optional<String> apiToken,
                     int maxFrameBytes) {
    static final int DEFAULT_PORT = 18789;

    static BrainSettings from(Config config, boolean handsEnabled) {
        String host = config.get("server.host").asString().orElse("127.0.0.1");
        int port = config.get("server.port").asInt().orElse(DEFAULT_PORT);
        if (port < 0 || port > 65535) {
            throw new ConfigException("server.port must be from 0 to 65535, got " + port);
        }
        Optional<String> secret = nonBlank(config, "worker.secret");
        Optional<String> token = nonBlank(config, "api.token");
        int maxFrame = config.get("protocol.max-frame-bytes").asInt().orElse(1 << 20);
        if (maxFrame < 1024) {
            throw new ConfigException("protocol.max-frame-bytes must be at least 1024, got " + maxFrame);
        }
        if (handsEnabled && secret.isEmpty()) {
            throw new ConfigException("hands.enabled is true but worker.secret is not set: set EFFERENT_WORKER_SECRET "
                    + "to a long random value, and give workers the same one");
        }
        if (!isLoopback(host) && (token.isEmpty() || (handsEnabled && secret.isEmpty()))) {
            throw new ConfigException("refusing to listen on " + host + " without api.token (EFFERENT_API_TOKEN)"
                    + (handsEnabled ? " and worker.secret (EFFERENT_WORKER_SECRET)" : "") + " set: anyone who can "
                    + "reach the port could run commands on your machines. Set them, or keep server.host at 127.0.0.1");
        }
        return new BrainSettings(host, port, secret, token, maxFrame);
    }

    private static Optional<String> nonBlank(Config config, String key) {
        return config.get(key).asString().asOptional().filter(v -> !v.isBlank());
    }

    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new ConfigException("server.host '" + host + "' cannot be resolved: " + e.getMessage());
        }
    }

    static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
