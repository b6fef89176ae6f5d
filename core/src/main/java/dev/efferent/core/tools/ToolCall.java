package dev.efferent.core.tools;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.Objects;

/**
 * One call of a tool.
 *
 * @param taskId  the task it runs for
 * @param tool    the tool's name
 * @param params  the params, a JSON object
 * @param timeout how long it may run; the call fails "timed out after …" then
 * @param session who the call runs for (a conversation key), empty when unknown
 */
public record ToolCall(String taskId, String tool, ObjectNode params, Duration timeout, String session) {
    public ToolCall {
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        Objects.requireNonNull(session, "session");
    }

    /** A call with no session. */
    public ToolCall(String taskId, String tool, ObjectNode params, Duration timeout) {
        this(taskId, tool, params, timeout, "");
    }
}
