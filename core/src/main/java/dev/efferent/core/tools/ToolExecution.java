package dev.efferent.core.tools;

import java.util.concurrent.CompletableFuture;

/** A running call: its outcome to await, and a way to cancel it. */
public interface ToolExecution {

    /** The task the call runs for. */
    String taskId();

    /** Completes once with the outcome; never completes exceptionally. */
    CompletableFuture<ToolOutcome> outcome();

    /**
     * Completes when the tool's code has returned, which frees the thread it ran on and the slot it held. That is
     * before the outcome for a tool that returns by itself, moments after it for a tool that heeds its
     * cancellation or deadline, and later, or never, for one that ignores interrupts or is blocked in native code:
     * such a call has ended for its caller but still holds a thread, so whoever bounds concurrency counts it until
     * this completes.
     */
    CompletableFuture<Void> released();

    /**
     * Cancels the call: its cancel hooks run (killing processes), its thread is interrupted, and the outcome
     * completes as cancelled with {@code reason}, unless it had already ended.
     */
    void cancel(String reason);
}
