package dev.efferent.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Objects;
import java.util.Optional;

/**
 * {@code task:result}, worker to brain: how a task ended. The worker keeps it until {@code task:result:ack}.
 *
 * @param taskId     the task
 * @param status     completed, failed or cancelled
 * @param result     the tool's result in MCP's {@code CallToolResult} shape; required when completed
 * @param error      why it failed or was cancelled; required unless completed
 * @param durationMs how long the tool ran
 */
public record TaskResult(String taskId,
                         ResultStatus status,
                         Optional<ObjectNode> result,
                         Optional<String> error,
                         long durationMs) implements Message {
    public static final String TYPE = "task:result";

    public TaskResult {
        Checks.text(taskId, "taskId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(error, "error");
        Checks.nonNegative(durationMs, "durationMs");
        if (status == ResultStatus.COMPLETED && result.isEmpty()) {
            throw new IllegalArgumentException("a completed result needs result");
        }
        if (status != ResultStatus.COMPLETED && error.isEmpty()) {
            throw new IllegalArgumentException("a " + status.wire() + " result needs error");
        }
    }

    /** A completed result. */
    public static TaskResult completed(String taskId, ObjectNode result, long durationMs) {
        return new TaskResult(taskId, ResultStatus.COMPLETED, Optional.of(result), Optional.empty(), durationMs);
    }

    /** A failed or cancelled result. */
    public static TaskResult ended(String taskId, ResultStatus status, String error, long durationMs) {
        return new TaskResult(taskId, status, Optional.empty(), Optional.of(error), durationMs);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
