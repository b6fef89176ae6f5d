package dev.efferent.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What to enqueue. Build one with {@link #builder(String, String)}.
 *
 * @param tool           the tool to run
 * @param params         the tool's params as JSON object text
 * @param priority       1 (lowest) to 10 (highest), default 5
 * @param runAt          not claimed before this instant; empty means now
 * @param timeout        how long one attempt may run, default 5 minutes
 * @param maxAttempts    how many times it may be handed to a worker, default 1
 * @param targetWorker   the only worker that may claim it
 * @param session        the session it runs in: the browser's pages it shares, the machine its caller prefers (a
 *                       conversation's key, {@code api}, {@code mcp}); returned with the task
 * @param origin         who asked for it, in its caller's own encoding (the queue stores it and never reads it)
 * @param idempotencyKey enqueuing twice with one key gives the first task back
 * @param held           enqueued {@link TaskStatus#AWAITING_APPROVAL}: it waits for {@link TaskQueue#approve}
 */
public record NewTask(String tool,
                      String params,
                      int priority,
                      Optional<Instant> runAt,
                      Duration timeout,
                      int maxAttempts,
                      Optional<String> targetWorker,
                      Optional<String> session,
                      Optional<String> origin,
                      Optional<String> idempotencyKey,
                      boolean held) {
    /** Lowest priority. */
    public static final int MIN_PRIORITY = 1;
    /** Highest priority. */
    public static final int MAX_PRIORITY = 10;
    /** Priority when none is given. */
    public static final int DEFAULT_PRIORITY = 5;
    /** Timeout when none is given. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);

    public NewTask {
        Objects.requireNonNull(tool, "tool");
        if (tool.isBlank()) {
            throw new QueueException("tool must not be blank");
        }
        Objects.requireNonNull(params, "params");
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw new QueueException("priority must be from 1 to 10, got " + priority);
        }
        Objects.requireNonNull(runAt, "runAt");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new QueueException("timeout must be positive, got " + timeout);
        }
        if (maxAttempts < 1) {
            throw new QueueException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        Objects.requireNonNull(targetWorker, "targetWorker");
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
    }

    /** A builder for a task running {@code tool} with {@code params} (JSON object text). */
    public static Builder builder(String tool, String params) {
        return new Builder(tool, params);
    }

    /** Builds a {@link NewTask}. */
    public static final class Builder {
        private final String tool;
        private final String params;
        private int priority = DEFAULT_PRIORITY;
        private Optional<Instant> runAt = Optional.empty();
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxAttempts = 1;
        private Optional<String> targetWorker = Optional.empty();
        private Optional<String> session = Optional.empty();
        private Optional<String> origin = Optional.empty();
        private Optional<String> idempotencyKey = Optional.empty();
        private boolean held;

        private Builder(String tool, String params) {
            this.tool = tool;
            this.params = params;
        }

        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        public Builder runAt(Instant runAt) {
            this.runAt = Optional.of(runAt);
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder targetWorker(String workerId) {
            this.targetWorker = Optional.of(workerId);
            return this;
        }

        public Builder session(String session) {
            this.session = Optional.of(session);
            return this;
        }

        public Builder origin(String origin) {
            this.origin = Optional.of(origin);
            return this;
        }

        public Builder idempotencyKey(String key) {
            this.idempotencyKey = Optional.of(key);
            return this;
        }

        /** The task waits for a person's yes ({@link TaskQueue#approve}) before it can be claimed. */
        public Builder held() {
            this.held = true;
            return this;
        }

        public NewTask build() {
            return new NewTask(tool, params, priority, runAt, timeout, maxAttempts, targetWorker, session,
                    origin, idempotencyKey, held);
        }
    }
}
