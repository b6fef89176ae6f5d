package dev.efferent.brain;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.HomePath;
import dev.efferent.core.config.Secrets;
import io.helidon.config.Config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The brain server's settings.
 *
 * @param host          {@code server.host}: the address to listen on (default 127.0.0.1)
 * @param port          {@code server.port}: the port (default 18789; 0 picks a free one)
 * @param workerSecret  {@code worker.secret}: what workers and scripts may send as {@code Authorization: Bearer …};
 *                      without it, machines join by pairing only
 * @param apiToken      {@code api.token} (or {@code api.token-file}): what REST clients send as
 *                      {@code Authorization: Bearer …}; made once and kept under {@code brain.state-dir} if not set
 * @param generatedTokenFile where the made token is kept, when it was not configured
 * @param maxFrameBytes {@code protocol.max-frame-bytes}: largest worker frame accepted (default 1 MiB)
 * @param allowedHosts  {@code server.allowed-hosts}: names besides loopback and IP addresses that requests may
 *                      carry in {@code Host} ({@code *} for any), e.g. the VPS's DNS name
 * @param allowedOrigins {@code server.allowed-origins}: web origins besides the brain's own that may call it
 * @param stateDir      {@code brain.state-dir}: what the brain keeps for itself (default ~/.efferent/brain)
 * @param publicUrl     {@code brain.public-url}: how other machines reach this brain, for the command printed
 *                      with a pairing code
 */
record BrainSettings(String host, int port, Optional<String> workerSecret, Optional<String> apiToken,
                     int maxFrameBytes, List<String> allowedHosts, List<String> allowedOrigins,
                     Optional<Path> generatedTokenFile, Path stateDir, Optional<String> publicUrl) {
    /** Where a brain keeps what it makes for itself, such as its API token. */
    static final String DEFAULT_STATE_DIR = "~/.efferent/brain";
    static final int DEFAULT_PORT = 18789;

    static BrainSettings from(Config config, boolean handsEnabled) {
        String host = config.get("server.host").asString().orElse("127.0.0.1");
        int port = config.get("server.port").asInt().orElse(DEFAULT_PORT);
        if (port < 0 || port > 65535) {
            throw new ConfigException("server.port must be from 0 to 65535, got " + port);
        }
        Optional<String> secret = Secrets.read(config, "worker.secret");
        Optional<String> token = Secrets.read(config, "api.token");
        int maxFrame = config.get("protocol.max-frame-bytes").asInt().orElse(1 << 20);
        if (maxFrame < 1024) {
            throw new ConfigException("protocol.max-frame-bytes must be at least 1024, got " + maxFrame);
        }
        // Without worker.secret, machines join by pairing only (bin/efferent pair): each gets a token of its own.
        if (!isLoopback(host) && token.isEmpty()) {
            throw new ConfigException("refusing to listen on " + host + " without api.token (EFFERENT_API_TOKEN) "
                    + "set: anyone who can reach the port could run commands on your machines. Set it, or keep "
                    + "server.host at 127.0.0.1");
        }
        Path stateDir = HomePath.of(config.get("brain.state-dir").asString().orElse(DEFAULT_STATE_DIR));
        Optional<String> publicUrl = nonBlank(config, "brain.public-url").map(String::strip);
        publicUrl.ifPresent(url -> {
            if (!url.matches("(?i)(wss?|https?)://[^/\\s]+(/\\S*)?")) {
                throw new ConfigException("brain.public-url must look like wss://brain.example.com or "
                        + "ws://203.0.113.5:18789 (how machines reach this brain), got '" + url + "'");
            }
        });
        Optional<Path> generated = Optional.empty();
        if (token.isEmpty()) {
            Path file = stateDir.resolve("api-token");
            token = Optional.of(GeneratedToken.loadOrCreate(file));
            generated = Optional.of(file);
        }
        List<String> hosts = list(config, "server.allowed-hosts");
        List<String> origins = list(config, "server.allowed-origins");
        for (String origin : origins) {
            if (!origin.matches("(?i)https?://[^/\\s]+/?")) {
                throw new ConfigException("server.allowed-origins entries are web origins like https://console.example"
                        + ".com (scheme, host, optional port; no path), got '" + origin + "'");
            }
        }
        if (!isLoopback(host) && !host.equals("0.0.0.0") && !host.equals("::")) {
            // Listening on a named interface: that name is how people reach the brain.
            hosts = Stream.concat(hosts.stream(), Stream.of(host)).toList();
        }
        return new BrainSettings(host, port, secret, token, maxFrame, hosts, origins, generated, stateDir, publicUrl);
    }

    private static List<String> list(Config config, String key) {
        Config node = config.get(key);
        List<String> raw = node.type() == Config.Type.LIST ? node.asList(String.class).get()
                : node.asString().map(v -> List.of(v.split(","))).orElse(List.of());
        return raw.stream().map(String::strip).filter(v -> !v.isEmpty()).toList();
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
