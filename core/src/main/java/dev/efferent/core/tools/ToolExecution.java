package dev.efferent.core.tools;

import java.util.concurrent.CompletableFuture;

/** A running call: its outcome to await, and a way to cancel it. */
public interface ToolExecution {

    /** The task the call runs for. */
    String taskId();

    /** Completes once with the outcome; never completes exceptionally. */
    CompletableFuture<ToolOutcome> outcome();

    /**
     * Cancels the call: its cancel hooks run (killing processes), its thread is interrupted, and the outcome
     * completes as cancelled with {@code reason}, unless it had already ended.
     */
    void cancel(String reason);
}
