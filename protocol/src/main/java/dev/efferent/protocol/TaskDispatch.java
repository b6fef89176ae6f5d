package dev.efferent.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Objects;

/**
 * {@code task:dispatch}, brain to worker: run a tool.
 *
 * @param taskId    the task's id, used by every later frame about it
 * @param tool      the tool's name
 * @param params    the tool's params, a JSON object
 * @param priority  1 (lowest) to 10 (highest)
 * @param timeoutMs how long the task may run, from its dispatch
 * @param attempt   which try this is, from 1
 * @param session   who the task runs for (a conversation key such as {@code telegram:42}), so stateful tools such
 *                  as the browser keep one session per conversation; empty when unknown
 */
public record TaskDispatch(String taskId, String tool, ObjectNode params, int priority, long timeoutMs, int attempt,
                           String session)
        implements Message {
    public static final String TYPE = "task:dispatch";

    public TaskDispatch {
        Checks.text(taskId, "taskId");
        Checks.text(tool, "tool");
        Objects.requireNonNull(params, "params");
        Checks.range(priority, WireLimits.MIN_PRIORITY, WireLimits.MAX_PRIORITY, "priority");
        Checks.positive(timeoutMs, "timeoutMs");
        Checks.range(attempt, 1, Integer.MAX_VALUE, "attempt");
        Objects.requireNonNull(session, "session");
    }

    /** A dispatch with no session. */
    public TaskDispatch(String taskId, String tool, ObjectNode params, int priority, long timeoutMs, int attempt) {
        this(taskId, tool, params, priority, timeoutMs, attempt, "");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
