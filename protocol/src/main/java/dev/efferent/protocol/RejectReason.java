package dev.efferent.protocol;

import java.util.Arrays;
import java.util.Optional;

/** Why a worker refused a dispatched task. */
public enum RejectReason {
    /** All of the worker's slots are taken. */
    BUSY("busy"),
    /** The worker has no tool of that name. */
    UNKNOWN_TOOL("unknown_tool"),
    /** The params do not match the tool's input schema. */
    BAD_PARAMS("bad_params"),
    /**
     * The worker is stopping: it hands the task back, even one it had accepted, so that it runs elsewhere or after
     * the restart instead of being cancelled.
     */
    SHUTTING_DOWN("shutting_down");

    private final String wire;

    RejectReason(String wire) {
        this.wire = wire;
    }

    /** The value on the wire, e.g. {@code "unknown_tool"}. */
    public String wire() {
        return wire;
    }

    /** The reason whose wire value is {@code value}, if any. */
    public static Optional<RejectReason> fromWire(String value) {
        return Arrays.stream(values()).filter(r -> r.wire.equals(value)).findFirst();
    }
}
