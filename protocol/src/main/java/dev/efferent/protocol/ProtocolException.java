package dev.efferent.protocol;

import java.util.Objects;

/** A frame was refused. The message names the message type, the field and what was wrong with it. */
public class ProtocolException extends RuntimeException {
    private final ErrorCode code;

    public ProtocolException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    public ProtocolException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** The code to put into the {@code error} frame that answers the refused frame. */
    public ErrorCode code() {
        return code;
    }
}
