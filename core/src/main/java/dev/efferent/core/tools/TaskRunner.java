package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.RejectReason;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskAccepted;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.WorkerHeartbeat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * The worker side of the protocol's task messages, over a {@link LocalToolExecutor}: a {@code task:dispatch}
 * is rejected (busy, unknown tool, bad params) or accepted and run, its progress and result are sent back, and
 * a {@code task:cancel} stops it. Used by the worker process and by the brain's in-process worker alike; a task's
 * params are checked once: by a worker's runner, and for the brain's own by the router ({@link #inProcess}).
 *
 * <p>Each task takes one of {@code maxConcurrency} slots until its tool has returned, not merely until its result
 * is sent: a tool deaf to its timeout keeps its thread (see {@link ToolExecution#released()}), so its slot stays
 * taken, and stuck tools can cost a machine its slots but never an unbounded number of threads.
 */
public final class TaskRunner {
    /**
     * How long a result waits for a cancelled or timed-out tool to return. Most return within moments of their
     * interrupt; reporting once they have means the brain, which sends the next task on hearing the result, finds
     * the slot free. A tool still running then is reported anyway and keeps its slot.
     */
    static final Duration RESULT_GRACE = Duration.ofSeconds(1);

    private final LocalToolExecutor executor;
    private final int maxConcurrency;
    private final Listener listener;
    private final Guard guard;
    /** Whether the sender (the router, for the brain's own runner) checked a task against this copy of its tool. */
    private final Predicate<CatalogEntry> checkedBySender;
    /** Tasks whose result has not been sent. */
    private final Map<String, ToolExecution> running = new ConcurrentHashMap<>();
    /**
     * Calls whose tool has not returned, with the tool's name: the slots taken. A call that ended (timed out,
     * cancelled) while its tool runs on keeps its slot, so stuck tools cannot pile up threads.
     */
    private final Map<ToolExecution, String> slots = new ConcurrentHashMap<>();
    /** Stopping: every dispatch is handed back at once. */
    private volatile boolean draining;
    /** Tasks being stopped to be handed back: their end is reported as a hand-back, not a result. */
    private final Set<String> handedBack = ConcurrentHashMap.newKeySet();
    /** A dispatch was refused as busy since slots were last reported free. */
    private final AtomicBoolean refusedBusy = new AtomicBoolean();
    private final long startedNanos = System.nanoTime();

    /**
     * A runner.
     *
     * @param executor       runs the tools
     * @param maxConcurrency tasks it runs at once; more are rejected as busy. A task that ended (timed out, was
     *                       cancelled) while its tool runs on counts until the tool returns
     * @param listener       receives every reply, and hears when a task starts
     */
    public TaskRunner(LocalToolExecutor executor, int maxConcurrency, Listener listener) {
        this(executor, maxConcurrency, listener, (tool, params) -> Optional.empty());
    }

    /**
     * A runner that refuses the calls {@code guard} names a reason for, before they start: a machine's own rules,
     * which whoever sent the call cannot loosen.
     */
    public TaskRunner(LocalToolExecutor executor, int maxConcurrency, Listener listener, Guard guard) {
        this(executor, maxConcurrency, listener, guard, entry -> false);
    }

    private TaskRunner(LocalToolExecutor executor, int maxConcurrency, Listener listener, Guard guard,
                       Predicate<CatalogEntry> checkedBySender) {
        this.executor = executor;
        this.maxConcurrency = maxConcurrency;
        this.listener = listener;
        this.guard = guard;
        this.checkedBySender = checkedBySender;
    }

    /**
     * The runner of the brain's in-process worker. The router checks every task it sends here against its copy of
     * this executor's tool, on admission or as it dispatches it; a task for a tool that is still the copy the router
     * checked against ({@code checkedByRouter}) is not checked a second time. A tool that changed since (a toolkit
     * changed its tools, and the router has not yet heard) is checked here.
     */
    public static TaskRunner inProcess(LocalToolExecutor executor, int maxConcurrency, Listener listener,
                                       Predicate<CatalogEntry> checkedByRouter) {
        return new TaskRunner(executor, maxConcurrency, listener, (tool, params) -> Optional.empty(), checkedByRouter);
    }

    /** Why this machine refuses a call, if it does. */
    @FunctionalInterface
    public interface Guard {
        /** The reason to refuse {@code tool} with {@code params}, in words for the person who asked; empty to run it. */
        Optional<String> refusal(String tool, ObjectNode params);
    }

    /** Handles a {@code task:dispatch} or {@code task:cancel}; other messages are not for it and are ignored. */
    public void handle(Message message) {
        switch (message) {
            case TaskDispatch d -> dispatch(d);
            case TaskCancel c -> Optional.ofNullable(running.get(c.taskId()))
                    .ifPresent(e -> e.cancel(c.reason().isBlank() ? "cancelled" : c.reason()));
            default -> {
            }
        }
    }

    /** Slots taken: tasks running, and tasks that ended while their tool runs on. */
    public int active() {
        return slots.size();
    }

    /** Whether {@code taskId} is running here. */
    public boolean isRunning(String taskId) {
        return running.containsKey(taskId);
    }

    /** Tasks whose result has not been sent yet. */
    public int running() {
        return running.size();
    }

    /**
     * Stops taking tasks: from now on every dispatch is answered {@code task:rejected shutting_down}. A dispatch
     * being accepted at this moment is let finish first (the lock), so it counts as {@linkplain #running() running}
     * once this returns: a stop that came a moment after an accept must not miss the task it accepted.
     */
    public synchronized void drain() {
        draining = true;
    }

    /** Waits until no task is running, or {@code grace} has passed; whether none is left. */
    public boolean awaitIdle(Duration grace) throws InterruptedException {
        long end = System.nanoTime() + grace.toNanos();
        while (!running.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        return running.isEmpty();
    }

    /**
     * Stops every running task and reports each as {@code task:rejected shutting_down} instead of a result, so
     * the brain queues it again for another worker or for after the restart. Returns how many.
     */
    public int handBackAll() {
        int n = 0;
        for (Map.Entry<String, ToolExecution> e : running.entrySet()) {
            handedBack.add(e.getKey());
            e.getValue().cancel("worker shutting down");
            n++;
        }
        return n;
    }

    /** Cancels every running task, e.g. at shutdown. */
    public void cancelAll(String reason) {
        running.values().forEach(e -> e.cancel(reason));
    }

    private synchronized void dispatch(TaskDispatch d) {
        if (running.containsKey(d.taskId())) {
            // The brain sent it again (a reconnect): it runs once.
            listener.reply(new TaskAccepted(d.taskId()));
            return;
        }
        if (draining) {
            listener.reply(new TaskRejected(d.taskId(), RejectReason.SHUTTING_DOWN, "worker shutting down"));
            return;
        }
        // Slots, not results outstanding: a task whose tool has returned is about to report, and the brain, which
        // sends the next task on hearing that report, must not find the slot still taken.
        if (slots.size() >= maxConcurrency) {
            refusedBusy.set(true);
            listener.reply(new TaskRejected(d.taskId(), RejectReason.BUSY, busy()));
            return;
        }
        LocalToolExecutor.Checked found = executor.lookUp(d.tool());
        LocalToolExecutor.Checked checked = found.entry().filter(checkedBySender).isPresent() ? found
                : executor.checkOnce(d.tool(), d.params());
        Optional<LocalToolExecutor.Refusal> refusal = checked.refusal();
        if (refusal.isPresent()) {
            RejectReason reason = refusal.get().kind() == LocalToolExecutor.Refusal.Kind.UNKNOWN_TOOL
                    ? RejectReason.UNKNOWN_TOOL : RejectReason.BAD_PARAMS;
            listener.reply(new TaskRejected(d.taskId(), reason, refusal.get().message()));
            return;
        }
        Optional<String> refused = guard.refusal(d.tool(), d.params());
        if (refused.isPresent()) {
            // The call cannot run as given here: the brain fails it with this reason, and does not retry it.
            listener.reply(new TaskRejected(d.taskId(), RejectReason.BAD_PARAMS, refused.get()));
            return;
        }
        listener.starting(d);
        listener.reply(new TaskAccepted(d.taskId()));
        Duration timeout = Duration.ofMillis(Math.max(1, d.timeoutMs()));
        ToolExecution execution = executor.execute(new ToolCall(d.taskId(), d.tool(), d.params(), timeout, d.session()),
                (task, percent, text) -> listener.reply(new TaskProgress(task, percent, text)), checked);
        slots.put(execution, d.tool());
        running.put(d.taskId(), execution);
        CompletableFuture<Void> slotFree = execution.released().whenComplete((v, e) -> {
            slots.remove(execution);
            slotFreed();
        });
        execution.outcome().whenComplete((outcome, error) -> executor.within(slotFree, RESULT_GRACE)
                .whenComplete((v, e) -> {
                    listener.reply(handedBack.remove(d.taskId())
                            ? new TaskRejected(d.taskId(), RejectReason.SHUTTING_DOWN, "worker shut down before the "
                            + "task finished; handed back")
                            : toResult(d.taskId(), outcome));
                    // After the reply: whoever waits for the runner to be idle (a stopping worker) may close the
                    // link as soon as this task is gone, and its result must be on its way by then.
                    running.remove(d.taskId(), execution);
                    slotFreed();
                }));
    }

    /** Why a dispatch is refused as busy, naming the tools of calls that ended but hold their slots. */
    private String busy() {
        List<String> stuck = slots.entrySet().stream()
                .filter(e -> e.getKey().outcome().isDone()).map(Map.Entry::getValue).sorted().toList();
        return "all " + maxConcurrency + " slots are taken" + (stuck.isEmpty() ? "" : ", " + stuck.size()
                + " of them by calls that ended but whose tools have not returned " + stuck);
    }

    /**
     * After a refusal as busy, tells the brain when a slot is free again. The brain marks a worker that refused as
     * full until a {@code worker:heartbeat} shows room, and the brain's in-process worker sends no other heartbeat.
     */
    private synchronized void slotFreed() {
        if (slots.size() < maxConcurrency && refusedBusy.compareAndSet(true, false)) {
            listener.reply(new WorkerHeartbeat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos),
                    SystemLoad.average(), active()));
        }
    }

    /** The {@code task:result} that reports {@code outcome}. */
    public static TaskResult toResult(String taskId, ToolOutcome outcome) {
        long ms = outcome.duration().toMillis();
        return switch (outcome.status()) {
            case COMPLETED -> TaskResult.completed(taskId, ToolResultJson.toJson(outcome.result().orElseThrow()), ms);
            case FAILED -> TaskResult.ended(taskId, ResultStatus.FAILED, outcome.error().orElseThrow(), ms);
            case CANCELLED -> TaskResult.ended(taskId, ResultStatus.CANCELLED, outcome.error().orElseThrow(), ms);
        };
    }

    /** Receives what a {@link TaskRunner} sends. */
    public interface Listener {
        /** A reply for the brain: accepted, rejected, progress or result. */
        void reply(Message message);

        /** A task is about to start, before its {@code task:accepted} is sent. */
        default void starting(TaskDispatch dispatch) {
        }
    }
}
