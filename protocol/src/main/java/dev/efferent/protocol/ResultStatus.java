package dev.efferent.protocol;

import java.util.Arrays;
import java.util.Optional;

/** How a task ended on the worker. */
public enum ResultStatus {
    /** The tool returned a result (which may itself report an error). */
    COMPLETED("completed"),
    /** The tool could not run or threw. */
    FAILED("failed"),
    /** The task was stopped by {@code task:cancel}. */
    CANCELLED("cancelled");

    private final String wire;

    ResultStatus(String wire) {
        this.wire = wire;
    }

    /** The value on the wire, e.g. {@code "completed"}. */
    public String wire() {
        return wire;
    }

    /** The status whose wire value is {@code value}, if any. */
    public static Optional<ResultStatus> fromWire(String value) {
        return Arrays.stream(values()).filter(s -> s.wire.equals(value)).findFirst();
    }
}
