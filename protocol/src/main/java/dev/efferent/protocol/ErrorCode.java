package dev.efferent.protocol;

import java.util.Arrays;
import java.util.Optional;

/** The codes of {@code error} frames. {@code docs/protocol.md} lists when each is sent. */
public enum ErrorCode {
    /** The frame is not valid JSON. */
    INVALID_JSON("invalid_json"),
    /** The frame is JSON, but not an object. */
    NOT_AN_OBJECT("not_an_object"),
    /** The object has no string {@code type}. */
    MISSING_TYPE("missing_type"),
    /** The {@code type} names no message of this protocol version. */
    UNKNOWN_TYPE("unknown_type"),
    /** A required field is absent or null. */
    MISSING_FIELD("missing_field"),
    /** A field has the wrong JSON type. */
    INVALID_FIELD("invalid_field"),
    /** A field's value is outside its range or set. */
    OUT_OF_RANGE("out_of_range"),
    /** The frame is larger than the receiver's maximum. */
    FRAME_TOO_LARGE("frame_too_large"),
    /** The message is valid but not allowed now, e.g. a task frame before {@code worker:register}. */
    UNEXPECTED_MESSAGE("unexpected_message"),
    /** The worker speaks a protocol version the brain does not. */
    UNSUPPORTED_VERSION("unsupported_version"),
    /** The frame names a task the receiver does not know. */
    UNKNOWN_TASK("unknown_task"),
    /** The receiver failed while handling a valid frame. */
    INTERNAL("internal");

    private final String wire;

    ErrorCode(String wire) {
        this.wire = wire;
    }

    /** The value on the wire, e.g. {@code "missing_field"}. */
    public String wire() {
        return wire;
    }

    /** The code whose wire value is {@code value}, if any. */
    public static Optional<ErrorCode> fromWire(String value) {
        return Arrays.stream(values()).filter(c -> c.wire.equals(value)).findFirst();
    }
}
