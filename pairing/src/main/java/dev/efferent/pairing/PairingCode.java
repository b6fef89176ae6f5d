package dev.efferent.pairing;

import java.time.Instant;

/**
 * A one-time pairing code.
 *
 * @param code      what the person types, e.g. {@code K7QM3-XWD8P}
 * @param expiresAt when it stops working, if not used before
 * @param command   the worker command that uses it, for the person to paste on the new machine
 */
public record PairingCode(String code, Instant expiresAt, String command) {
}
