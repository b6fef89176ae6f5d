package dev.efferent.core.tools;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.config.HomePath;
import dev.efferent.core.plugin.PluginLayers;
import dev.efferent.core.plugin.PluginRegistry;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolkitProvider;
import io.helidon.config.Config;

import java.nio.file.Path;
import java.util.List;

/**
 * Sets up this process's tools from configuration: every toolkit found, less those with
 * {@code tools.<name>.enabled: false}, each given {@code tools.<name>.*}, confined to {@code tools.roots}
 * (default: the working directory).
 */
public final class LocalTools {
    private LocalTools() {
    }

    /** An executor over the toolkits on the module path, configured by {@code config} (the root node). */
    public static LocalToolExecutor open(Config config) {
        return open(config, PluginLayers.none());
    }

    /** An executor over the toolkits on the module path and in {@code plugins}. */
    public static LocalToolExecutor open(Config config, PluginLayers plugins) {
        boolean failOnError = PluginLayers.failOnError(config);
        return open(config, ToolCatalog.toolkitProviders(plugins, failOnError).build());
    }

    /** An executor over the given toolkit providers, configured by {@code config} (the root node). */
    public static LocalToolExecutor open(Config config, PluginRegistry<ToolkitProvider> providers) {
        Config tools = config.get("tools");
        AllowedRoots roots = roots(tools);
        ToolCatalog catalog = ToolCatalog.create(providers, name -> new ConfigSettings(tools.get(name)),
                name -> tools.get(name).get("enabled").asBoolean().orElse(true));
        return new LocalToolExecutor(catalog, roots);
    }

    /** The allowed roots from {@code tools.roots}; {@code ~} stands for the user's home directory. */
    public static AllowedRoots roots(Config tools) {
        List<String> configured = new ConfigSettings(tools).list("roots");
        List<Path> paths = (configured.isEmpty() ? List.of(".") : configured).stream()
                .map(HomePath::expand)
                .map(p -> Path.of(p).toAbsolutePath().normalize())
                .toList();
        try {
            return AllowedRoots.of(paths);
        } catch (ToolException e) {
            throw new ConfigException("tools.roots: " + e.getMessage(), e);
        }
    }
}
