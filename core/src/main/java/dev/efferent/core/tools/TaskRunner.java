package dev.efferent.core.tools;

import dev.efferent.protocol.Message;
import dev.efferent.protocol.RejectReason;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskAccepted;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResult;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The worker side of the protocol's task messages, over a {@link LocalToolExecutor}: a {@code task:dispatch}
 * is rejected (busy, unknown tool, bad params) or accepted and run, its progress and result are sent back, and
 * a {@code task:cancel} stops it. Used by the worker process and by the brain's in-process worker alike.
 */
public final class TaskRunner {
    private final LocalToolExecutor executor;
    private final int maxConcurrency;
    private final Listener listener;
    private final Map<String, ToolExecution> running = new ConcurrentHashMap<>();

    /**
     * A runner.
     *
     * @param executor       runs the tools
     * @param maxConcurrency tasks it runs at once; more are rejected as busy
     * @param listener       receives every reply, and hears when a task starts
     */
    public TaskRunner(LocalToolExecutor executor, int maxConcurrency, Listener listener) {
        this.executor = executor;
        this.maxConcurrency = maxConcurrency;
        this.listener = listener;
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

    /** Tasks running now. */
    public int active() {
        return running.size();
    }

    /** Whether {@code taskId} is running here. */
    public boolean isRunning(String taskId) {
        return running.containsKey(taskId);
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
        if (running.size() >= maxConcurrency) {
            listener.reply(new TaskRejected(d.taskId(), RejectReason.BUSY,
                    "all " + maxConcurrency + " slots are taken"));
            return;
        }
        Optional<LocalToolExecutor.Refusal> refusal = executor.check(d.tool(), d.params());
        if (refusal.isPresent()) {
            RejectReason reason = refusal.get().kind() == LocalToolExecutor.Refusal.Kind.UNKNOWN_TOOL
                    ? RejectReason.UNKNOWN_TOOL : RejectReason.BAD_PARAMS;
            listener.reply(new TaskRejected(d.taskId(), reason, refusal.get().message()));
            return;
        }
        listener.starting(d);
        listener.reply(new TaskAccepted(d.taskId()));
        Duration timeout = Duration.ofMillis(Math.max(1, d.timeoutMs()));
        ToolExecution execution = executor.execute(new ToolCall(d.taskId(), d.tool(), d.params(), timeout, d.session()),
                (task, percent, text) -> listener.reply(new TaskProgress(task, percent, text)));
        running.put(d.taskId(), execution);
        execution.outcome().whenComplete((outcome, error) -> {
            running.remove(d.taskId());
            listener.reply(toResult(d.taskId(), outcome));
        });
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
