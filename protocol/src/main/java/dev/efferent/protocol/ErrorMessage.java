package dev.efferent.protocol;

import java.util.Objects;

/**
 * {@code error}, either direction: a frame could not be understood or answered. Never fatal by itself.
 *
 * @param code    what went wrong, machine-readable
 * @param message what went wrong, for people: which field, which value, what was expected
 */
public record ErrorMessage(ErrorCode code, String message) implements Message {
    public static final String TYPE = "error";

    public ErrorMessage {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    /** The error frame that answers a refused frame. */
    public static ErrorMessage of(ProtocolException e) {
        return new ErrorMessage(e.code(), e.getMessage());
    }

    @Override
    public String type() {
        return TYPE;
    }
}
