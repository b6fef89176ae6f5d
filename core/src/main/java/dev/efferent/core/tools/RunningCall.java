package dev.efferent.core.tools;

import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.ToolContext;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** One call's state: the {@link ToolContext} the tool sees and the {@link ToolExecution} the caller holds. */
final class RunningCall implements ToolContext, ToolExecution {
    private static final System.Logger LOG = System.getLogger(RunningCall.class.getName());

    private final String taskId;
    private final String session;
    private final Instant start;
    private final Duration timeout;
    private final AllowedRoots roots;
    private final ProgressListener progress;
    private final Clock clock;
    private final CompletableFuture<ToolOutcome> outcome = new CompletableFuture<>();
    private final CompletableFuture<Void> released = new CompletableFuture<>();
    private final List<Runnable> hooks = new ArrayList<>();
    private boolean cancelled;
    private Thread thread;

    RunningCall(String taskId, String session, Instant start, Duration timeout, AllowedRoots roots,
                ProgressListener progress, Clock clock) {
        this.taskId = taskId;
        this.session = session;
        this.start = start;
        this.timeout = timeout;
        this.roots = roots;
        this.progress = progress;
        this.clock = clock;
    }

    @Override
    public String taskId() {
        return taskId;
    }

    @Override
    public String session() {
        return session;
    }

    @Override
    public AllowedRoots roots() {
        return roots;
    }

    @Override
    public void progress(int percent, String message) {
        if (outcome.isDone()) {
            return;
        }
        try {
            progress.progress(taskId, Math.max(0, Math.min(100, percent)), message == null ? "" : message);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Progress listener failed for task " + taskId, e);
        }
    }

    @Override
    public synchronized boolean isCancelled() {
        return cancelled;
    }

    @Override
    public void onCancel(Runnable hook) {
        synchronized (this) {
            if (!cancelled) {
                hooks.add(hook);
                return;
            }
        }
        runHook(hook);
    }

    @Override
    public Instant deadline() {
        return start.plus(timeout);
    }

    @Override
    public CompletableFuture<ToolOutcome> outcome() {
        return outcome;
    }

    @Override
    public CompletableFuture<Void> released() {
        return released;
    }

    @Override
    public void cancel(String reason) {
        end(ToolOutcome.cancelled(reason, elapsed()));
    }

    void timeOut() {
        end(ToolOutcome.failed("timed out after " + DurationText.of(timeout), elapsed()));
    }

    /** Ends the call with {@code result} first, so a tool returning meanwhile cannot win, then stops the tool. */
    private void end(ToolOutcome result) {
        if (finish(result)) {
            stopTool();
        }
    }

    /** Completes the outcome unless it is already complete; true if this call did. */
    boolean finish(ToolOutcome result) {
        return outcome.complete(result);
    }

    /** The tool's code has returned (or never started): its thread and its slot are free. */
    void release() {
        released.complete(null);
    }

    Duration elapsed() {
        return Duration.between(start, clock.instant());
    }

    synchronized void bind(Thread current) {
        thread = current;
        if (cancelled) {
            current.interrupt();
        }
    }

    synchronized void unbind() {
        thread = null;
        Thread.interrupted();
    }

    /** Marks the call cancelled, interrupts the tool and runs its cancel hooks. */
    private void stopTool() {
        List<Runnable> toRun;
        synchronized (this) {
            cancelled = true;
            toRun = List.copyOf(hooks);
            hooks.clear();
            if (thread != null) {
                thread.interrupt();
            }
        }
        toRun.forEach(this::runHook);
    }

    private void runHook(Runnable hook) {
        try {
            hook.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Cancel hook failed for task " + taskId, e);
        }
    }
}
