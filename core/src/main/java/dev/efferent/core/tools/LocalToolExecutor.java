package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.Risk;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs tools of the {@link ToolCatalog} in this process: validates the params, runs the tool on a platform
 * thread of its own (never on the virtual threads that serve requests) with a deadline and cancellation, forwards
 * progress, and turns every failure into a failed outcome with a message. A tool's failure never escapes to the
 * caller, and a tool that never returns costs its own thread, never the process's others.
 */
public final class LocalToolExecutor implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LocalToolExecutor.class.getName());
    private static final ObjectMapper MAPPER = ToolResultJson.MAPPER;
    /** How long {@link #close()} waits for interrupted tools to return. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(1);

    private final ToolCatalog catalog;
    private final AllowedRoots roots;
    private final Clock clock;
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-tool-timer").daemon().factory());
    /** A platform thread per call, off the virtual threads that serve requests: see {@link ToolThreads}. */
    private final ToolThreads threads;

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
        this(catalog, roots, clock, Duration.ofSeconds(5), Duration.ofMinutes(1));
    }

    /**
     * An executor whose stuck calls are reported after {@code firstWarning}, then every {@code warningEvery}.
     */
    LocalToolExecutor(ToolCatalog catalog, AllowedRoots roots, Clock clock, Duration firstWarning,
                      Duration warningEvery) {
        this.catalog = catalog;
        this.roots = roots;
        this.clock = clock;
        this.threads = new ToolThreads(deadlines, clock, firstWarning, warningEvery);
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
     * How risky {@code tool} judges a call with {@code params} ({@link dev.efferent.tools.spi.Tool#risk}); unjudged
     * for a tool this process does not have, or one whose judgement fails (logged).
     */
    public Risk risk(String tool, ObjectNode params) {
        Optional<CatalogEntry> entry = catalog.find(tool);
        if (entry.isEmpty()) {
            return Risk.UNJUDGED;
        }
        try {
            return entry.get().tool().risk(new ToolParams(toMap(params)));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Tool " + tool + " could not judge a call's risk; it is not judged", e);
            return Risk.UNJUDGED;
        }
    }

    /**
     * Checks that {@code call} can start here: the tool exists and the params match its schema.
     *
     * @return why it cannot, if it cannot
     */
    public Optional<Refusal> check(String tool, ObjectNode params) {
        return checkOnce(tool, params).refusal();
    }

    /** Why {@code params} do not fit {@code entry}, if they do not. */
    private Optional<Refusal> check(CatalogEntry entry, String tool, ObjectNode params) {
        List<String> problems = entry.validate(params);
        if (!problems.isEmpty()) {
            return Optional.of(new Refusal(Refusal.Kind.BAD_PARAMS,
                    "invalid params for " + tool + ": " + String.join("; ", problems)));
        }
        return Optional.empty();
    }

    /**
     * Starts {@code call} on a platform thread of its own. Unknown tools and invalid params end at once as failed
     * outcomes. A call that times out or is cancelled ends at once too, but its thread runs until the tool
     * returns: {@link ToolExecution#released()} tells when, and a tool that does not return soon is reported.
     * Callers bound how many calls run at once ({@link TaskRunner} does), counting a call until it is released.
     */
    public ToolExecution execute(ToolCall call, ProgressListener progress) {
        return execute(call, progress, NOT_CHECKED);
    }

    /**
     * The tool {@code call} names here, and why it cannot start with its params, if it cannot: the check
     * {@link TaskRunner} makes once, before it accepts a task ({@link #execute(ToolCall, ProgressListener, Checked)}).
     */
    Checked checkOnce(String tool, ObjectNode params) {
        Optional<CatalogEntry> entry = catalog.find(tool);
        return new Checked(entry, entry.isEmpty() ? Optional.of(unknown(tool)) : check(entry.get(), tool, params));
    }

    /** The tool {@code tool} names here, for a call whose params were checked elsewhere against this copy. */
    Checked lookUp(String tool) {
        Optional<CatalogEntry> entry = catalog.find(tool);
        return new Checked(entry, entry.isPresent() ? Optional.empty() : Optional.of(unknown(tool)));
    }

    private Refusal unknown(String tool) {
        return new Refusal(Refusal.Kind.UNKNOWN_TOOL, "unknown tool '" + tool + "'; this machine has "
                + catalog.names());
    }

    /** A call checked against {@code entry}, the tool as it was then; {@code refusal} is why it cannot start. */
    record Checked(Optional<CatalogEntry> entry, Optional<Refusal> refusal) {
    }

    /** A call not checked before: its params are checked when it starts. */
    private static final Checked NOT_CHECKED = new Checked(Optional.empty(), Optional.empty());

    /**
     * {@link #execute(ToolCall, ProgressListener)} of a call already {@code checked}: its params are not checked
     * again unless the tool changed since.
     */
    ToolExecution execute(ToolCall call, ProgressListener progress, Checked checked) {
        Optional<CatalogEntry> checkedEntry = checked.refusal().isEmpty() ? checked.entry() : Optional.empty();
        Instant start = clock.instant();
        RunningCall running = new RunningCall(call.taskId(), call.session(), start, call.timeout(), roots, progress, clock);
        // Looked up once: a toolkit may change its tools while this runs.
        Optional<CatalogEntry> found = catalog.find(call.tool());
        // Checked once: again only if the tool is not the one the caller checked (a toolkit changed it meanwhile).
        boolean checkedAlready = found.isPresent() && checkedEntry.isPresent() && found.get() == checkedEntry.get();
        Optional<Refusal> refusal = checkedAlready ? Optional.empty()
                : found.isEmpty() ? Optional.of(unknown(call.tool())) : check(found.get(), call.tool(), call.params());
        if (refusal.isPresent()) {
            running.release();
            running.finish(ToolOutcome.failed(refusal.get().message(), Duration.ZERO));
            return running;
        }
        CatalogEntry entry = found.orElseThrow();
        ToolParams params = new ToolParams(toMap(call.params()));
        var timer = deadlines.schedule(() -> running.timeOut(), call.timeout().toMillis(), TimeUnit.MILLISECONDS);
        running.outcome().whenComplete((o, e) -> {
            timer.cancel(false);
            threads.watch(running, call.tool(), o.error().orElse("completed"));
        });
        try {
            threads.start(running, call.tool(), () -> run(entry, params, running, call));
        } catch (IllegalStateException e) {
            LOG.log(Level.ERROR, "Task " + call.taskId() + " could not start", e);
            running.finish(ToolOutcome.failed(e.getMessage(), running.elapsed()));
        }
        return running;
    }

    /** The body of a call's thread: the tool, its outcome, and the release of the thread before the outcome. */
    private void run(CatalogEntry entry, ToolParams params, RunningCall running, ToolCall call) {
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
        // Released before the outcome is told: a caller that starts the next call on hearing it finds the slot free.
        running.release();
        if (!running.finish(outcome)) {
            LOG.log(Level.DEBUG, "Task {0}: tool {1} returned after the call had ended ({2})",
                    call.taskId(), call.tool(), outcome.status());
        }
    }

    /** Completes when {@code event} does or after {@code grace}, whichever comes first. */
    CompletableFuture<Void> within(CompletableFuture<?> event, Duration grace) {
        CompletableFuture<Void> either = new CompletableFuture<>();
        event.whenComplete((v, e) -> either.complete(null));
        if (!either.isDone()) {
            try {
                var timer = deadlines.schedule(() -> either.complete(null), grace.toMillis(), TimeUnit.MILLISECONDS);
                either.whenComplete((v, e) -> timer.cancel(false));
            } catch (RejectedExecutionException e) {
                either.complete(null);
            }
        }
        return either;
    }

    /** Threads running tool code now, stuck ones included. */
    List<Thread> liveThreads() {
        return threads.live();
    }

    /**
     * Interrupts running calls, waits a moment for them to return, and closes the catalogue's toolkits. Never
     * waits long: tools still running then are named in a warning and left to end with the process.
     */
    @Override
    public void close() {
        deadlines.shutdownNow();
        threads.close(CLOSE_WAIT);
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
