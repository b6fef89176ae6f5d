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
 * (default: the user's home, less {@code tools.shell.hide}).
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

    /**
     * The allowed roots from {@code tools.roots} (the user's home directory when unset; {@code ~} stands for it),
     * less the paths of {@code tools.shell.hide} (by default {@link AllowedRoots#DEFAULT_HIDDEN}), which the shell's
     * sandbox hides too: one rule for every tool.
     */
    public static AllowedRoots roots(Config tools) {
        ConfigSettings settings = new ConfigSettings(tools);
        List<String> configured = settings.list("roots");
        List<Path> paths = (configured.isEmpty() ? List.of("~") : configured).stream()
                .map(HomePath::expand)
                .map(p -> Path.of(p).toAbsolutePath().normalize())
                .toList();
        // Set, even to an empty list, replaces the default, as for the shell.
        ConfigSettings shell = new ConfigSettings(tools.get("shell"));
        List<Path> hidden = (shell.get("hide").isPresent() ? shell.list("hide") : AllowedRoots.DEFAULT_HIDDEN).stream()
                .map(HomePath::expand)
                .map(p -> Path.of(p).toAbsolutePath().normalize())
                .toList();
        try {
            return AllowedRoots.of(paths, hidden);
        } catch (ToolException e) {
            throw new ConfigException("tools.roots: " + e.getMessage(), e);
        }
    }
}
