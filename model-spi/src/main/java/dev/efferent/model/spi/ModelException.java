package dev.efferent.model.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A model could not answer. The message says which server, what it said and what to check, in words fit for the
 * conversation; {@link #kind()} says what kind of failure it is, so a caller can decide what to do.
 */
public class ModelException extends RuntimeException {
    private final Kind kind;
    private final transient Optional<Duration> retryAfter;

    /** A failure of {@code kind}. */
    public ModelException(Kind kind, String message) {
        this(kind, message, Optional.empty(), null);
    }

    /** A failure of {@code kind}, with the server's wish for when to try again and the cause, if any. */
    public ModelException(Kind kind, String message, Optional<Duration> retryAfter, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
    }

    /** What kind of failure it is. */
    public Kind kind() {
        return kind;
    }

    /** How long the server asked to wait before trying again (a {@code Retry-After}), if it said. */
    public Optional<Duration> retryAfter() {
        return retryAfter;
    }

    /** Whether the same call may succeed later: the server was down, busy or limited the rate. */
    public boolean retryable() {
        return kind == Kind.UNREACHABLE || kind == Kind.RATE_LIMITED || kind == Kind.SERVER_ERROR
                || kind == Kind.TIMEOUT;
    }

    /** The kinds of failure. */
    public enum Kind {
        /** The server could not be reached (connection refused, unknown host). */
        UNREACHABLE,
        /** The server refused the credentials (401, 403). */
        REFUSED,
        /** Too many requests (429). */
        RATE_LIMITED,
        /** The conversation is longer than the model's context. */
        CONTEXT_TOO_LONG,
        /** The server refused the request for another reason (other 4xx), e.g. an unknown model. */
        BAD_REQUEST,
        /** The server failed (5xx). */
        SERVER_ERROR,
        /** No answer within the configured time. */
        TIMEOUT,
        /** The answer could not be understood. */
        MALFORMED
    }
}
