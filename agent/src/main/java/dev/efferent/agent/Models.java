package dev.efferent.agent;

import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.plugin.PluginRegistry;
import dev.efferent.model.spi.Model;
import dev.efferent.model.spi.ModelProvider;
import io.helidon.config.Config;

import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/** Opens the language model {@code model.*} configures, if any, from the providers on the module path. */
public final class Models {
    /** The provider used when {@code model.provider} is not set. */
    public static final String DEFAULT_PROVIDER = "openai";

    private Models() {
    }

    /** The model providers on the module path. */
    public static PluginRegistry<ModelProvider> providers() {
        return PluginRegistry.<ModelProvider>builder("model provider", ModelProvider::name)
                .discover(ServiceLoader.load(ModelProvider.class)).build();
    }

    /**
     * The configured model; empty when none is: neither {@code model.name}, {@code model.provider} nor
     * {@code model.base-url} is set.
     *
     * @param config the root configuration
     */
    public static Optional<Model> open(Config config) {
        Config node = config.get("model");
        boolean configured = List.of("name", "provider", "base-url").stream().anyMatch(k -> node.get(k).exists());
        if (!configured) {
            return Optional.empty();
        }
        String name = node.get("provider").asString().orElse(DEFAULT_PROVIDER);
        return Optional.of(providers().select(name).open(new ConfigSettings(node)));
    }
}
