package dev.efferent.core.plugin;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.config.HomePath;
import io.helidon.config.Config;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolutionException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Plugins dropped into plugins directories: each jar, or each folder of jars (a plugin and its private
 * dependencies), is loaded into a {@link ModuleLayer} of its own over the boot layer, where the SPIs live. A
 * plugin that cannot be loaded is reported with its jar and the reason; whether that stops start-up is the
 * caller's choice. Layers cannot be unloaded: plugins are read once, at start-up.
 */
public final class PluginLayers {
    private static final System.Logger LOG = System.getLogger(PluginLayers.class.getName());

    private final List<Plugin> plugins;
    private final List<String> failures;

    /**
     * One loaded plugin.
     *
     * @param source the jar or folder it came from
     * @param layer  its module layer
     */
    public record Plugin(Path source, ModuleLayer layer) {
    }

    private PluginLayers(List<Plugin> plugins, List<String> failures) {
        this.plugins = plugins;
        this.failures = failures;
    }

    /**
     * The plugins the configuration asks for: {@code plugins.dirs} (default: {@code plugins/} in the runtime's
     * home, when the launcher sets {@code efferent.home}, and {@code ~/.efferent/plugins}), failing on a broken
     * plugin unless {@code plugins.on-error} is {@code skip}.
     */
    public static PluginLayers fromConfig(Config config) {
        List<String> configured = new ConfigSettings(config.get("plugins")).list("dirs");
        List<Path> dirs = new ArrayList<>();
        if (configured.isEmpty()) {
            String home = System.getProperty("efferent.home");
            if (home != null) {
                dirs.add(Path.of(home, "plugins"));
            }
            dirs.add(Path.of(System.getProperty("user.home"), ".efferent", "plugins"));
        } else {
            configured.forEach(d -> dirs.add(Path.of(HomePath.expand(d))));
        }
        String onError = config.get("plugins.on-error").asString().orElse("fail");
        if (!onError.equals("fail") && !onError.equals("skip")) {
            throw new ConfigException("plugins.on-error must be fail or skip, got '"
                    + onError + "'");
        }
        return load(dirs, onError.equals("fail"));
    }

    /** Whether a broken plugin should stop start-up, as the configuration says. */
    public static boolean failOnError(Config config) {
        return !"skip".equals(config.get("plugins.on-error").asString().orElse("fail"));
    }

    /** No plugins. */
    public static PluginLayers none() {
        return new PluginLayers(List.of(), List.of());
    }

    /**
     * Loads every plugin in {@code directories} (missing directories are skipped).
     *
     * @param failOnError whether a plugin that cannot be loaded fails the whole load (the default) or is logged and
     *                    left out
     * @throws PluginException naming the jar and the cause, when {@code failOnError}
     */
    public static PluginLayers load(List<Path> directories, boolean failOnError) {
        List<Plugin> plugins = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (Path dir : directories) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            for (Path entry : entries(dir)) {
                try {
                    plugins.add(new Plugin(entry, layer(entry)));
                    LOG.log(Level.INFO, "Loaded plugin {0}", entry);
                } catch (PluginException e) {
                    if (failOnError) {
                        throw e;
                    }
                    LOG.log(Level.WARNING, e.getMessage() + "; going on without it");
                    failures.add(e.getMessage());
                }
            }
        }
        return new PluginLayers(List.copyOf(plugins), List.copyOf(failures));
    }

    /** The loaded plugins. */
    public List<Plugin> plugins() {
        return plugins;
    }

    /** Plugins left out because they could not be loaded. */
    public List<String> failures() {
        return failures;
    }

    /**
     * The providers of {@code service} in the boot layer (from {@code bootLoader}, created by the module that
     * declares {@code uses}) and in every plugin layer.
     */
    public <P> List<ServiceLoader.Provider<P>> providers(Class<P> service, ServiceLoader<P> bootLoader,
                                                         boolean failOnError) {
        List<ServiceLoader.Provider<P>> all = new ArrayList<>(bootLoader.stream().toList());
        for (Plugin plugin : plugins) {
            try {
                ServiceLoader.load(plugin.layer(), service).stream()
                        .filter(p -> p.type().getModule().getLayer() == plugin.layer())
                        .forEach(all::add);
            } catch (ServiceConfigurationError e) {
                String message = "plugin " + plugin.source() + " failed to load: " + e.getMessage();
                if (failOnError) {
                    throw new PluginException(message, e);
                }
                LOG.log(Level.WARNING, message + "; going on without it");
            }
        }
        return all;
    }

    private static ModuleLayer layer(Path source) {
        List<Path> jars = Files.isDirectory(source) ? jars(source) : List.of(source);
        ModuleFinder finder = ModuleFinder.of(jars.toArray(Path[]::new));
        Set<String> roots;
        try {
            roots = finder.findAll().stream().map(ModuleReference::descriptor).map(d -> d.name())
                    .collect(Collectors.toSet());
        } catch (FindException e) {
            throw new PluginException("plugin " + source + " cannot be read: " + causes(e)
                    + "; is it a modular jar built for Java 21 or newer?", e);
        }
        if (roots.isEmpty()) {
            throw new PluginException("plugin " + source + " holds no jar");
        }
        ModuleLayer boot = ModuleLayer.boot();
        try {
            Configuration cf = boot.configuration().resolveAndBind(finder, ModuleFinder.of(), roots);
            return boot.defineModulesWithOneLoader(cf, ClassLoader.getSystemClassLoader());
        } catch (FindException | ResolutionException e) {
            throw new PluginException("plugin " + source + " cannot be loaded: " + causes(e)
                    + " (put the jars it needs beside it in a folder of its own)", e);
        } catch (LayerInstantiationException e) {
            throw new PluginException("plugin " + source + " cannot be loaded: " + causes(e), e);
        }
    }

    private static List<Path> entries(Path dir) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                if (Files.isDirectory(p) || p.getFileName().toString().endsWith(".jar")) {
                    entries.add(p);
                }
            }
        } catch (IOException e) {
            throw new PluginException("plugins directory " + dir + " cannot be read: " + e.getMessage(), e);
        }
        entries.sort(null);
        return entries;
    }

    private static List<Path> jars(Path folder) {
        List<Path> jars = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder, "*.jar")) {
            stream.forEach(jars::add);
        } catch (IOException e) {
            throw new PluginException("plugin folder " + folder + " cannot be read: " + e.getMessage(), e);
        }
        return jars;
    }

    private static String causes(Throwable e) {
        StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            text.append(": ").append(c.getMessage());
        }
        return text.toString();
    }
}
