package dev.efferent.core.tools;

import dev.efferent.tools.spi.ToolResult;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a call ended.
 *
 * @param status   completed (the tool returned a result, which may report an error), failed or cancelled
 * @param result   the tool's result; present when completed
 * @param error    why it failed or was cancelled; present unless completed
 * @param duration how long it ran
 */
public record ToolOutcome(Status status, Optional<ToolResult> result, Optional<String> error, Duration duration) {

    /** How a call ended. */
    public enum Status {
        /** The tool returned a result. */
        COMPLETED,
        /** The tool could not run, threw, or ran out of time. */
        FAILED,
        /** The call was cancelled. */
        CANCELLED
    }

    public ToolOutcome {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(duration, "duration");
        if ((status == Status.COMPLETED) != result.isPresent() || (status == Status.COMPLETED) == error.isPresent()) {
            throw new IllegalArgumentException("a completed outcome has a result; any other has an error");
        }
    }

    /** A completed outcome. */
    public static ToolOutcome completed(ToolResult result, Duration duration) {
        return new ToolOutcome(Status.COMPLETED, Optional.of(result), Optional.empty(), duration);
    }

    /** A failed outcome. */
    public static ToolOutcome failed(String error, Duration duration) {
        return new ToolOutcome(Status.FAILED, Optional.empty(), Optional.of(error), duration);
    }

    /** A cancelled outcome. */
    public static ToolOutcome cancelled(String reason, Duration duration) {
        return new ToolOutcome(Status.CANCELLED, Optional.empty(), Optional.of(reason), duration);
    }
}
