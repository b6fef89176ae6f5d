package dev.efferent.brain;

import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/** Checks an {@code Authorization: Bearer …} header against a secret, in constant time. */
public final class BearerToken {
    private static final String PREFIX = "Bearer ";
    private final Optional<byte[]> expected;

    /** A check against no secret: every request passes (the worker endpoint of a brain without hands). */
    public BearerToken() {
        this.expected = Optional.empty();
    }

    /** A check against {@code secret}. */
    public BearerToken(String secret) {
        this.expected = Optional.of(secret.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether a token is configured at all. */
    public boolean required() {
        return expected.isPresent();
    }

    /** Whether {@code given} is the token, compared in constant time. */
    public boolean matches(String given) {
        return expected.isEmpty() || MessageDigest.isEqual(expected.get(), given.getBytes(StandardCharsets.UTF_8));
    }

    public boolean accepts(Headers headers) {
        if (expected.isEmpty()) {
            return true;
        }
        String value = headers.first(HeaderNames.AUTHORIZATION).orElse("");
        if (!value.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return false;
        }
        // MessageDigest.isEqual takes the same time whatever the first difference is.
        return matches(value.substring(PREFIX.length()).strip());
    }
}
