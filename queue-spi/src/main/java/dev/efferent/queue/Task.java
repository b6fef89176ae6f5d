package dev.efferent.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A task as the queue holds it: a snapshot; the queue's methods return a fresh one after each change.
 *
 * @param id             the queue-assigned id
 * @param tool           the tool to run
 * @param params         the tool's params as JSON object text
 * @param priority       1 (lowest) to 10 (highest)
 * @param status         where it is in its life
 * @param attempt        how many times it has been handed to a worker
 * @param maxAttempts    how many times it may be
 * @param runAt          not claimed before this instant
 * @param timeout        how long one attempt may run
 * @param targetWorker   the only worker that may claim it, if set
 * @param session        the session it runs in (a conversation's key, {@code api}, {@code mcp}), if known
 * @param origin         who asked for it, in its caller's own encoding, if given
 * @param idempotencyKey the caller's de-duplication key, if given
 * @param leaseOwner     the worker holding it while claimed or running
 * @param leaseExpiresAt when that lease runs out unless renewed
 * @param result         the result (JSON object text) once completed
 * @param error          the last error, after a failure or cancel
 * @param createdAt      when it was enqueued
 * @param updatedAt      when it last changed
 * @param finishedAt     when it finished
 * @param progress       the last progress reported by the attempt running now; empty unless {@code RUNNING}
 */
public record Task(String id,
                   String tool,
                   String params,
                   int priority,
                   TaskStatus status,
                   int attempt,
                   int maxAttempts,
                   Instant runAt,
                   Duration timeout,
                   Optional<String> targetWorker,
                   Optional<String> session,
                   Optional<String> origin,
                   Optional<String> idempotencyKey,
                   Optional<String> leaseOwner,
                   Optional<Instant> leaseExpiresAt,
                   Optional<String> result,
                   Optional<String> error,
                   Instant createdAt,
                   Instant updatedAt,
                   Optional<Instant> finishedAt,
                   Optional<Progress> progress) {
    public Task {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(runAt, "runAt");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(targetWorker, "targetWorker");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(leaseOwner, "leaseOwner");
        Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        Objects.requireNonNull(finishedAt, "finishedAt");
        Objects.requireNonNull(progress, "progress");
    }

    /** Whether another attempt is allowed after this one. */
    public boolean hasAttemptsLeft() {
        return attempt < maxAttempts;
    }
}
