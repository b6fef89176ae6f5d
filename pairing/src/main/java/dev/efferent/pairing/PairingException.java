package dev.efferent.pairing;

/** A pairing refused: what was wrong, in words for the person pairing, and its kind (for an HTTP status). */
public final class PairingException extends RuntimeException {
    /** Why a pairing was refused. */
    public enum Kind {
        /** The request itself is malformed (a missing or unusable name or id). */
        INVALID,
        /** The code is wrong, used or expired. */
        WRONG_CODE,
        /** Too many wrong codes lately: pairing waits a minute. */
        TOO_MANY,
        /** Another machine is paired under that name. */
        NAME_TAKEN,
        /** No paired worker has that name. */
        NOT_FOUND
    }

    private final Kind kind;

    public PairingException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
