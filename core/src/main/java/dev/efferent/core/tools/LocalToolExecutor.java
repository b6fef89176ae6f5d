package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs tools of the {@link ToolCatalog} in this process: validates the params, runs the tool on its own
 * virtual thread with a deadline and cancellation, forwards progress, and turns every failure into a failed
 * outcome with a message. A tool's failure never escapes to the caller.
 */
public final class LocalToolExecutor implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LocalToolExecutor.class.getName());
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final ToolCatalog catalog;
    private final AllowedRoots roots;
    private final Clock clock;
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("efferent-tool-", 0).factory());
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-tool-deadlines").daemon().factory());

    /**
     * An executor.
     *
     * @param catalog the tools it can run
     * @param roots   the directories tools may touch
     */
    public LocalToolExecutor(ToolCatalog catalog, AllowedRoots roots) {
        this(catalog, roots, Clock.systemUTC());
    }

    LocalToolExecutor(ToolCatalog catalog, AllowedRoots roots, Clock clock) {
        this.catalog = catalog;
        this.roots = roots;
        this.clock = clock;
    }

    /** The tools this executor runs. */
    public ToolCatalog catalog() {
        return catalog;
    }

    /** The directories tools may touch. */
    public AllowedRoots roots() {
        return roots;
    }

    /**
     * Checks that {@code call} can start here: the tool exists and the params match its schema.
     *
     * @return why it cannot, if it cannot
     */
    public Optional<Refusal> check(String tool, ObjectNode params) {
        Optional<CatalogEntry> entry = catalog.find(tool);
        if (entry.isEmpty()) {
            return Optional.of(new Refusal(Refusal.Kind.UNKNOWN_TOOL,
                    "unknown tool '" + tool + "'; this machine has " + catalog.names()));
        }
        List<String> problems = entry.get().validate(params);
        if (!problems.isEmpty()) {
            return Optional.of(new Refusal(Refusal.Kind.BAD_PARAMS,
                    "invalid params for " + tool + ": " + String.join("; ", problems)));
        }
        return Optional.empty();
    }

    /** Starts {@code call}. Unknown tools and invalid params end at once as failed outcomes. */
    public ToolExecution execute(ToolCall call, ProgressListener progress) {
        Instant start = clock.instant();
        RunningCall running = new RunningCall(call.taskId(), call.session(), start, call.timeout(), roots, progress, clock);
        Optional<Refusal> refusal = check(call.tool(), call.params());
        if (refusal.isPresent()) {
            running.finish(ToolOutcome.failed(refusal.get().message(), Duration.ZERO));
            return running;
        }
        CatalogEntry entry = catalog.find(call.tool()).orElseThrow();
        ToolParams params = new ToolParams(toMap(call.params()));
        var timer = deadlines.schedule(() -> running.timeOut(), call.timeout().toMillis(), TimeUnit.MILLISECONDS);
        running.outcome().whenComplete((o, e) -> timer.cancel(false));
        threads.execute(() -> {
            running.bind(Thread.currentThread());
            ToolOutcome outcome;
            try {
                ToolResult result = entry.tool().call(params, running);
                outcome = ToolOutcome.completed(result, running.elapsed());
            } catch (ToolException e) {
                outcome = ToolOutcome.failed(e.getMessage(), running.elapsed());
            } catch (Throwable e) {
                // Any escape here would kill nothing but this call; report it as the call's failure.
                if (!running.isCancelled()) {
                    LOG.log(Level.WARNING, "Tool '" + call.tool() + "' threw while running task " + call.taskId(), e);
                }
                outcome = ToolOutcome.failed(call.tool() + " failed: " + describe(e), running.elapsed());
            } finally {
                running.unbind();
            }
            if (!running.finish(outcome)) {
                LOG.log(Level.DEBUG, "Task {0}: tool {1} returned after the call had ended ({2})",
                        call.taskId(), call.tool(), outcome.status());
            }
        });
        return running;
    }

    /** Stops running calls and closes the catalogue's toolkits. */
    @Override
    public void close() {
        deadlines.shutdownNow();
        threads.shutdownNow();
        catalog.close();
    }

    private static Map<String, Object> toMap(ObjectNode params) {
        Map<String, Object> values = new HashMap<>();
        params.properties().forEach(e -> {
            if (!e.getValue().isNull()) {
                values.put(e.getKey(), MAPPER.convertValue(e.getValue(), Object.class));
            }
        });
        return values;
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + message;
    }

    /**
     * Why a call cannot start here.
     *
     * @param kind    unknown tool or bad params
     * @param message for the user, naming the tool or the field
     */
    public record Refusal(Kind kind, String message) {
        /** Why a call cannot start. */
        public enum Kind {
            /** No tool of that name here. */
            UNKNOWN_TOOL,
            /** The params do not match the tool's schema. */
            BAD_PARAMS
        }
    }
}
