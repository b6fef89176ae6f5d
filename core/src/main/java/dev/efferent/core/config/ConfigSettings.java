package dev.efferent.core.config;

import dev.efferent.tools.spi.Settings;
import io.helidon.config.Config;

import java.util.List;
import java.util.Optional;

/** Adapts a Helidon {@link Config} node to the SPIs' {@link Settings} view. */
public final class ConfigSettings implements Settings {
    private final Config node;

    /** Settings read from {@code node}; keys are relative to it. */
    public ConfigSettings(Config node) {
        this.node = node;
    }

    @Override
    public Optional<String> get(String key) {
        Config value = node.get(key);
        if (value.isLeaf()) {
            return value.asString().asOptional();
        }
        // A YAML list read as one value: join it, so list() splits it back.
        return value.asList(String.class).asOptional().map(l -> String.join(",", l));
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
