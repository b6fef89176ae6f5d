package dev.efferent.brain;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The stack a brain is closed by: the last opened first, every part closed though one fails. */
class ClosersTest {
    private final List<String> closed = new ArrayList<>();

    @Test
    void closesInReverseAndGoesOnPastAPartThatFails() {
        Closers closers = new Closers();
        closers.push("queue", () -> closed.add("queue"));
        closers.push("router", () -> {
            closed.add("router");
            throw new IllegalStateException("router stuck");
        });
        closers.push("server", () -> closed.add("server"));

        closers.close();
        assertEquals(List.of("server", "router", "queue"), closed);
        closers.close();
        assertEquals(3, closed.size(), "a second close closes nothing twice");
    }

    @Test
    void aFailedStartKeepsItsCauseWithEveryCloseFailureSuppressed() {
        Closers closers = new Closers();
        closers.push("queue", () -> closed.add("queue"));
        IllegalStateException stuck = new IllegalStateException("tools stuck");
        closers.push("tools", () -> {
            throw stuck;
        });
        RuntimeException cause = new IllegalArgumentException("server.port must be from 0 to 65535");

        RuntimeException thrown = closers.closeAfter(cause);
        assertSame(cause, thrown);
        assertEquals(List.of(stuck), List.of(thrown.getSuppressed()));
        assertEquals(List.of("queue"), closed);
    }
}
