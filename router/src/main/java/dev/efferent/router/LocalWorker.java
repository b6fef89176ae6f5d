package dev.efferent.router;

import dev.efferent.core.tools.CatalogEntry;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.TaskRunner;
import dev.efferent.core.tools.ToolDescriptors;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.protocol.WorkerTools;
import dev.efferent.plugin.Ids;
import dev.efferent.tools.spi.Placement;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** Starts the brain's in-process worker: a connection like any worker's, over which the brain's own tools run. */
final class LocalWorker {
    private final RouterSettings settings;
    private final RouterState state;
    private final Predicate<Runnable> post;

    LocalWorker(RouterSettings settings, RouterState state, Predicate<Runnable> post) {
        this.settings = settings;
        this.state = state;
        this.post = post;
    }

    /** Registers the in-process worker of {@code executor} on {@code connection}; before anything is posted. */
    void start(LocalToolExecutor executor, InProcessWorker link, Connection connection) {
        state.localTools = Optional.of(executor);
        // The runner skips its own check only for a tool that is still the copy this router's check used.
        link.attach(TaskRunner.inProcess(executor, settings.localConcurrency(), connection::receive,
                entry -> state.localEntries.get(entry.name()) == entry));
        // Several brains may share one queue: each one's in-process worker needs its own id (lease owner).
        String id = Router.LOCAL_WORKER + "-" + Ids.next();
        // A toolkit here changed its tools (an MCP server restarted): the in-process worker says so, as a worker
        // would. Asked before the tools are read, so no change is missed; what it posts comes after the register.
        executor.catalog().onChange(() -> post.test(() -> connection.receive(new WorkerTools(tools(executor)))));
        connection.receive(new WorkerRegister(Message.PROTOCOL_VERSION, id, Router.LOCAL_WORKER, hostname(),
                System.getProperty("os.name", "").toLowerCase(Locale.ROOT) + "-" + System.getProperty("os.arch", ""),
                tools(executor), settings.localConcurrency()));
    }

    /** The brain's own tools, all known; those it runs itself returned. Runs on the router's thread. */
    private List<ToolDescriptor> tools(LocalToolExecutor executor) {
        state.localEntries = executor.catalog().entries().stream()
                .collect(Collectors.toUnmodifiableMap(CatalogEntry::name, e -> e));
        List<ToolDescriptor> all = executor.catalog().entries().stream()
                .map(e -> ToolDescriptors.of(e, settings.placementOf(e.name(), e.spec().placement()))).toList();
        all.forEach(d -> state.knownTools.put(d.name(), d));
        state.toolsChanged();
        executor.catalog().entries().forEach(e -> state.origins.put(e.name(), e.origin().describeModule()));
        // With hands, the brain runs CLOUD tools, and HYBRID ones while no online worker offers them (Dispatch).
        return settings.handsEnabled()
                ? all.stream().filter(d -> RouterState.placement(d) != Placement.LOCAL).toList() : all;
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
