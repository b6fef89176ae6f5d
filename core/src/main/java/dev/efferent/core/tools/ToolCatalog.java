package dev.efferent.core.tools;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.plugin.PluginException;
import dev.efferent.core.plugin.PluginInfo;
import dev.efferent.core.plugin.PluginLayers;
import dev.efferent.core.plugin.PluginRegistry;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolSpec;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * The tools this process can run, from every enabled toolkit, by name. Tool names are unique across
 * toolkits; each tool's input schema is compiled once, here, so a broken schema fails at start-up. A toolkit
 * whose tools change ({@link Toolkit#onChange}) is read again; its listeners ({@link #onChange}) are told.
 */
public final class ToolCatalog implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ToolCatalog.class.getName());
    private static final ObjectMapper MAPPER = ToolResultJson.MAPPER;

    private final List<Toolkit> toolkits;
    private final Map<String, PluginInfo> origins;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    /** Replaced whole when a toolkit changes, so a reader sees one version or the next. */
    private volatile Map<String, CatalogEntry> byName;
    /** What was offered when the listeners were last told, so that they hear of real changes only. */
    private List<ToolSpec> offered;

    private ToolCatalog(List<Toolkit> toolkits, Map<String, PluginInfo> origins, Map<String, CatalogEntry> byName) {
        this.toolkits = toolkits;
        this.origins = origins;
        this.byName = byName;
        this.offered = offered();
        toolkits.forEach(toolkit -> toolkit.onChange(this::refresh));
        // A change between reading the tools and asking to hear of changes is not missed.
        refresh();
    }

    /** The toolkit providers on the module path (the boot layer), found by {@link ServiceLoader}. */
    public static PluginRegistry.Builder<ToolkitProvider> toolkitProviders() {
        return PluginRegistry.<ToolkitProvider>builder("toolkit", ToolkitProvider::name)
                .discover(ServiceLoader.load(ToolkitProvider.class));
    }

    /** The toolkit providers on the module path and in the plugins' layers. */
    public static PluginRegistry.Builder<ToolkitProvider> toolkitProviders(PluginLayers plugins, boolean failOnError) {
        return PluginRegistry.<ToolkitProvider>builder("toolkit", ToolkitProvider::name)
                .discover(plugins.providers(ToolkitProvider.class, ServiceLoader.load(ToolkitProvider.class), failOnError))
                .failOnError(failOnError);
    }

    /**
     * Creates every enabled toolkit and catalogues its tools.
     *
     * @param providers the toolkit providers
     * @param settings  the settings of a toolkit by name ({@code tools.<name>} in the configuration)
     * @param enabled   whether the toolkit of that name is wanted
     * @throws PluginException if a toolkit fails to start, two tools share a name, or a schema is invalid
     */
    public static ToolCatalog create(PluginRegistry<ToolkitProvider> providers,
                                     Function<String, Settings> settings,
                                     Function<String, Boolean> enabled) {
        // Toolkits start side by side (one waits on a trial process, another compiles schemas), and are catalogued
        // in their order.
        Map<String, Future<Started>> starting = new LinkedHashMap<>();
        try (ExecutorService starter = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String name : providers.names()) {
                if (!enabled.apply(name)) {
                    LOG.log(Level.INFO, "Toolkit ''{0}'' is disabled by configuration", name);
                    continue;
                }
                PluginInfo origin = providers.info(name);
                starting.put(name, starter.submit(() -> start(providers, name, origin, settings)));
            }
        }
        List<Toolkit> toolkits = new ArrayList<>();
        Map<String, PluginInfo> origins = new LinkedHashMap<>();
        Map<String, CatalogEntry> byName = new LinkedHashMap<>();
        RuntimeException failure = null;
        for (Map.Entry<String, Future<Started>> started : starting.entrySet()) {
            String name = started.getKey();
            PluginInfo origin = providers.info(name);
            Future<Started> future = started.getValue();
            if (future.state() != Future.State.SUCCESS) {
                // Failed, or cancelled (this thread was interrupted while the toolkits started).
                Throwable cause = future.state() == Future.State.FAILED ? future.exceptionNow()
                        : new InterruptedException("interrupted while it started");
                if (failure == null) {
                    failure = cause instanceof PluginException e ? e : new PluginException("toolkit '" + name
                            + "' from module " + origin.describeModule() + " failed to start: " + cause, cause);
                }
                continue;
            }
            Started toolkit = future.resultNow();
            toolkits.add(toolkit.toolkit());
            origins.put(name, origin);
            try {
                if (failure == null) {
                    for (Prepared tool : toolkit.tools()) {
                        add(byName, tool, name, origin);
                    }
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            toolkits.forEach(ToolCatalog::closeQuietly);
            throw failure;
        }
        return new ToolCatalog(List.copyOf(toolkits), origins, byName);
    }

    /** A toolkit started, with its tools' schemas read and compiled. */
    private record Started(Toolkit toolkit, List<Prepared> tools) {
    }

    /** A tool with its input schema read and compiled. */
    private record Prepared(Tool tool, ObjectNode schema, ParamsSchema validator) {
    }

    private static Started start(PluginRegistry<ToolkitProvider> providers, String name, PluginInfo origin,
                                 Function<String, Settings> settings) {
        Toolkit toolkit;
        try {
            toolkit = providers.select(name).create(settings.apply(name));
        } catch (RuntimeException e) {
            throw new PluginException("toolkit '" + name + "' from module " + origin.describeModule()
                    + " failed to start: " + e.getMessage(), e);
        }
        try {
            return new Started(toolkit, toolkit.tools().stream().map(tool -> prepare(tool, name)).toList());
        } catch (RuntimeException e) {
            closeQuietly(toolkit);
            throw e;
        }
    }

    /** A catalogue of the given toolkits, as tests and embedders build one. */
    public static ToolCatalog of(List<Toolkit> toolkits) {
        Map<String, PluginInfo> origins = new LinkedHashMap<>();
        Map<String, CatalogEntry> byName = new LinkedHashMap<>();
        for (Toolkit toolkit : toolkits) {
            PluginInfo origin = PluginInfo.of(toolkit.name(), toolkit.getClass());
            origins.put(toolkit.name(), origin);
            for (Tool tool : toolkit.tools()) {
                add(byName, tool, toolkit.name(), origin);
            }
        }
        return new ToolCatalog(List.copyOf(toolkits), origins, byName);
    }

    /** The tool named {@code name}, if this process has it, available now or not (a call to it says why not). */
    public Optional<CatalogEntry> find(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Every tool available now, in toolkit order: what this process offers. */
    public List<CatalogEntry> entries() {
        return byName.values().stream().filter(e -> e.tool().available()).toList();
    }

    /** The name of every tool available now, sorted. */
    public List<String> names() {
        return entries().stream().map(CatalogEntry::name).sorted().toList();
    }

    private List<ToolSpec> offered() {
        return entries().stream().map(CatalogEntry::spec).toList();
    }

    /** Asks to be told, on the toolkit's thread, after the tools or their availability changed. */
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /**
     * Reads every toolkit's tools again. A tool that a changed toolkit now offers under a taken name or with a
     * broken schema is left out and logged: a running process does not stop for one bad tool.
     */
    private synchronized void refresh() {
        Map<String, CatalogEntry> old = byName;
        // Each toolkit's list read once: one that changes again meanwhile is read at its next call.
        Map<Toolkit, List<Tool>> lists = new LinkedHashMap<>();
        toolkits.forEach(toolkit -> lists.put(toolkit, List.copyOf(toolkit.tools())));
        Map<String, CatalogEntry> kept = new LinkedHashMap<>();
        Map<String, CatalogEntry> added = new LinkedHashMap<>();
        // Tools offered before keep their names; a newcomer cannot take one from them.
        lists.values().forEach(tools -> tools.forEach(tool -> {
            CatalogEntry known = old.get(tool.spec().name());
            if (known != null && known.tool() == tool) {
                kept.put(known.name(), known);
            }
        }));
        lists.forEach((toolkit, tools) -> tools.forEach(tool -> {
            CatalogEntry holder = kept.get(tool.spec().name());
            if (holder != null && holder.tool() == tool) {
                return;
            }
            try {
                if (holder != null) {
                    throw new PluginException("its tool '" + tool.spec().name() + "' has the name of one in "
                            + "toolkit '" + holder.toolkit() + "'");
                }
                add(added, tool, toolkit.name(), origins.get(toolkit.name()));
            } catch (PluginException e) {
                LOG.log(Level.WARNING, "Toolkit ''{0}'' changed its tools; one is left out: {1}", toolkit.name(),
                        e.getMessage());
            }
        }));
        Map<String, CatalogEntry> next = new LinkedHashMap<>();
        lists.values().forEach(tools -> tools.forEach(tool -> {
            CatalogEntry entry = kept.getOrDefault(tool.spec().name(), added.get(tool.spec().name()));
            if (entry != null && entry.tool() == tool) {
                next.put(entry.name(), entry);
            }
        }));
        byName = next;
        List<ToolSpec> now = offered();
        if (now.equals(offered)) {
            return;
        }
        offered = now;
        LOG.log(Level.INFO, "The tools changed: {0} available ({1} known)", now.size(), next.size());
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "A listener for tool changes failed", e);
            }
        }
    }

    /** Closes every toolkit; failures are logged, not thrown, so every toolkit gets its turn. */
    @Override
    public void close() {
        toolkits.forEach(ToolCatalog::closeQuietly);
    }

    private static void add(Map<String, CatalogEntry> byName, Tool tool, String toolkit, PluginInfo origin) {
        add(byName, prepare(tool, toolkit), toolkit, origin);
    }

    private static Prepared prepare(Tool tool, String toolkit) {
        ToolSpec spec = tool.spec();
        ObjectNode schemaJson = parseSchema(spec, toolkit);
        try {
            // As the brain compiles a worker's: no $ref out of the schema, no $schema looked up.
            return new Prepared(tool, schemaJson, ParamsSchema.compile(schemaJson));
        } catch (RuntimeException e) {
            throw new PluginException("tool '" + spec.name() + "' of toolkit '" + toolkit
                    + "' has an invalid input schema: " + e.getMessage(), e);
        }
    }

    private static void add(Map<String, CatalogEntry> byName, Prepared prepared, String toolkit, PluginInfo origin) {
        Tool tool = prepared.tool();
        ToolSpec spec = tool.spec();
        CatalogEntry entry = new CatalogEntry(tool, spec, toolkit, origin, prepared.schema(), prepared.validator());
        CatalogEntry previous = byName.putIfAbsent(spec.name(), entry);
        if (previous != null) {
            throw new PluginException("two tools are named '" + spec.name() + "': one in toolkit '"
                    + previous.toolkit() + "' (module " + previous.origin().describeModule() + "), one in toolkit '"
                    + toolkit + "' (module " + origin.describeModule() + "); disable one of the toolkits");
        }
        LOG.log(Level.DEBUG, "Tool ''{0}'' from toolkit ''{1}'' ({2})", spec.name(), toolkit, origin.describeModule());
    }

    private static ObjectNode parseSchema(ToolSpec spec, String toolkit) {
        JsonNode node;
        try {
            node = MAPPER.readTree(spec.inputSchema());
        } catch (JsonProcessingException e) {
            throw new PluginException("tool '" + spec.name() + "' of toolkit '" + toolkit
                    + "' has an input schema that is not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject() || !"object".equals(node.path("type").asText())) {
            throw new PluginException("tool '" + spec.name() + "' of toolkit '" + toolkit
                    + "' must have an object input schema ({\"type\": \"object\", ...})");
        }
        return (ObjectNode) node;
    }

    private static void closeQuietly(Toolkit toolkit) {
        try {
            toolkit.close();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Toolkit '" + toolkit.name() + "' failed to close", e);
        }
    }
}
