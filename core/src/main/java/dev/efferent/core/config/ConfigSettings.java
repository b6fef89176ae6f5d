package dev.efferent.core.config;

import dev.efferent.plugin.Settings;
import io.helidon.config.Config;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Adapts a Helidon {@link Config} node to the SPIs' {@link Settings} view, naming each setting to users by its
 * full key and environment variable.
 */
public final class ConfigSettings implements Settings {
    private final Config node;
    private final List<Config> fallbacks;

    /** Settings read from {@code node}; keys are relative to it. */
    public ConfigSettings(Config node) {
        this.node = node;
        this.fallbacks = List.of();
    }

    /**
     * Settings read from {@code node}, and each key the node lacks from the first of {@code fallbacks} that has it
     * (e.g. {@code db.*} for a queue's keys); keys are relative to each node.
     */
    public ConfigSettings(Config node, Config... fallbacks) {
        this.node = node;
        this.fallbacks = List.of(fallbacks);
    }

    @Override
    public Optional<String> get(String key) {
        Optional<String> value = value(node, key);
        for (int i = 0; value.isEmpty() && i < fallbacks.size(); i++) {
            value = value(fallbacks.get(i), key);
        }
        return value;
    }

    private static Optional<String> value(Config node, String key) {
        Config value = node.get(key);
        if (value.isLeaf()) {
            return value.asString().asOptional();
        }
        // A YAML list read as one value: join it, so list() splits it back.
        return value.asList(String.class).asOptional().map(l -> String.join(",", l));
    }

    /** {@code 'tools.fs.max-read-bytes' (EFFERENT_TOOLS_FS_MAX__READ__BYTES)}. */
    @Override
    public String describe(String key) {
        String prefix = node.key().toString();
        String full = prefix.isEmpty() ? key : prefix + "." + key;
        return "'" + full + "' (" + ConfigLoader.ENV_PREFIX
                + full.toUpperCase(Locale.ROOT).replace("-", "__").replace(".", "_") + ")";
    }

    @Override
    public List<String> list(String key) {
        Config value = node.get(key);
        if (value.type() == Config.Type.LIST) {
            return value.asList(String.class).get().stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
        }
        return Settings.super.list(key);
    }
}
