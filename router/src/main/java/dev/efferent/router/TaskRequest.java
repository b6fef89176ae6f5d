package dev.efferent.router;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.ToolDescriptor;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A request to run a tool.
 *
 * @param tool           the tool's name
 * @param params         its params
 * @param worker         the worker (name or id) that must run it
 * @param priority       1 to 10; default 5
 * @param timeout        the attempt's time limit; default {@code tasks.default-timeout}
 * @param session        the session it runs in: the browser's pages it shares and the machine its caller prefers
 *                       (a conversation's key, {@code api}, {@code mcp})
 * @param origin         who asks, in its caller's encoding: stored with the task, never read by the router
 * @param idempotencyKey submitting twice with one key gives the first task back
 * @param held           the task waits for a person's yes ({@link Router#approve}) before it can run
 * @param checkedAgainst the tool as its caller checked the params against (the front door does, for the assistant):
 *                       a worker whose copy of the tool is this one runs it without checking them again
 */
public record TaskRequest(String tool,
                          ObjectNode params,
                          Optional<String> worker,
                          Optional<Integer> priority,
                          Optional<Duration> timeout,
                          Optional<String> session,
                          Optional<String> origin,
                          Optional<String> idempotencyKey,
                          boolean held,
                          Optional<ToolDescriptor> checkedAgainst) {
    public TaskRequest {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(worker, "worker");
        Objects.requireNonNull(priority, "priority");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(checkedAgainst, "checkedAgainst");
    }

    /** A request with defaults for everything but the tool and params. */
    public static TaskRequest of(String tool, ObjectNode params) {
        return new TaskRequest(tool, params, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), false, Optional.empty());
    }

    /** This request, to be run by {@code worker} (a name or an id). */
    public TaskRequest onWorker(String worker) {
        return new TaskRequest(tool, params, Optional.of(worker), priority, timeout, session, origin, idempotencyKey,
                held, checkedAgainst);
    }

    /** This request, run in {@code session} (its browser pages, its preferred machine). */
    public TaskRequest inSession(String session) {
        return new TaskRequest(tool, params, worker, priority, timeout, Optional.of(session), origin, idempotencyKey,
                held, checkedAgainst);
    }

    /** This request, asked for by {@code origin} (its caller's encoding of who asks). */
    public TaskRequest withOrigin(String origin) {
        return new TaskRequest(tool, params, worker, priority, timeout, session, Optional.of(origin), idempotencyKey,
                held, checkedAgainst);
    }

    /** This request with a time limit. */
    public TaskRequest withTimeout(Duration timeout) {
        return new TaskRequest(tool, params, worker, priority, Optional.of(timeout), session, origin, idempotencyKey,
                held, checkedAgainst);
    }

    /** This request with an idempotency key: submitting it again gives the first task back. */
    public TaskRequest withIdempotencyKey(String key) {
        return new TaskRequest(tool, params, worker, priority, timeout, session, origin, Optional.of(key), held,
                checkedAgainst);
    }

    /** This request, its params checked against {@code descriptor} by its caller. */
    public TaskRequest checkedAgainst(ToolDescriptor descriptor) {
        return new TaskRequest(tool, params, worker, priority, timeout, session, origin, idempotencyKey, held,
                Optional.of(descriptor));
    }

    /** This request, held until a person allows it ({@link Router#approve}); cancel it to deny it. */
    public TaskRequest heldForApproval() {
        return new TaskRequest(tool, params, worker, priority, timeout, session, origin, idempotencyKey, true,
                checkedAgainst);
    }
}
