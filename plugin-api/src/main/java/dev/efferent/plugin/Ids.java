package dev.efferent.plugin;

import java.security.SecureRandom;

/**
 * New ids for tasks, turns, schedules and sessions: 12 characters of lower-case base32 (60 random bits), short enough
 * to type in a chat ({@code /cancel k3x9m2qa7bfd}) and unique across brains and restarts without coordination.
 */
public final class Ids {
    private static final char[] ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    /** A new random id. */
    public static String next() {
        long bits = RANDOM.nextLong();
        char[] id = new char[12];
        for (int i = 0; i < id.length; i++) {
            id[i] = ALPHABET[(int) (bits & 31)];
            bits >>>= 5;
        }
        return new String(id);
    }
}
