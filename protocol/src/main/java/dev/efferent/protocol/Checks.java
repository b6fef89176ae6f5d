package dev.efferent.protocol;

import java.util.Objects;

/** Argument checks shared by the message records, so an invalid message cannot be built or encoded. */
final class Checks {
    private Checks() {
    }

    static String text(String value, String field) {
        Objects.requireNonNull(value, field);
        if (value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be blank");
        }
        return value;
    }

    static long nonNegative(long value, String field) {
        if (value < 0) {
            throw new IllegalArgumentException(field + " must not be negative, got " + value);
        }
        return value;
    }

    static long positive(long value, String field) {
        if (value <= 0) {
            throw new IllegalArgumentException(field + " must be positive, got " + value);
        }
        return value;
    }

    static int range(int value, int min, int max, String field) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " must be from " + min + " to " + max + ", got " + value);
        }
        return value;
    }
}
