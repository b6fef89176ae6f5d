package dev.efferent.calls;

import dev.efferent.channel.spi.Conversation;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OriginTest {
    private static final Conversation CHAT = new Conversation("telegram", "42");

    @Test
    void onlyTheAssistantAutomationsAndMcpAreJudgedByThePolicy() {
        assertFalse(new Origin.Person(CHAT).standing().judged());
        assertTrue(new Origin.Assistant(CHAT, "t1", 2, "c1").standing().judged());
        assertTrue(new Origin.Automation(CHAT, "r1", 0).standing().judged());
        assertFalse(new Origin.Schedule(CHAT, "s1", Instant.EPOCH).standing().judged());
        assertFalse(new Origin.Api("api").standing().judged());
        assertTrue(new Origin.Mcp("session-1").standing().judged());
    }

    @Test
    void anMcpClientIsRefusedWhereTheAssistantWouldWaitForAYes() {
        assertTrue(new Origin.Assistant(CHAT, "t1", 2, "c1").standing().mayWaitForYes());
        assertFalse(new Origin.Mcp("session-1").standing().mayWaitForYes());
    }

    @Test
    void callsInAConversationReportThereAndShareItsBrowser() {
        Origin schedule = new Origin.Schedule(CHAT, "s1", Instant.EPOCH);
        assertEquals(Optional.of(CHAT), schedule.reportsTo());
        assertEquals("telegram:42", schedule.browserSession());
        assertEquals(Optional.empty(), new Origin.Api("api").reportsTo());
        assertEquals("api", new Origin.Api("api").browserSession());
        assertEquals("mcp", new Origin.Mcp("session-1").browserSession());
    }

    @Test
    void keysAreTheOnesStoredBeforeOriginsExisted() {
        // Tasks queued by an older brain dedupe against these after an upgrade: the keys must not change.
        assertEquals(Optional.of("assistant:t1:2:c1"), new Origin.Assistant(CHAT, "t1", 2, "c1").idempotencyKey());
        assertEquals(Optional.of("assistant:automation:r1:3"), new Origin.Automation(CHAT, "r1", 3).idempotencyKey());
        assertEquals(Optional.of("schedule:s1:1970-01-01T00:00:00Z"),
                new Origin.Schedule(CHAT, "s1", Instant.EPOCH).idempotencyKey());
        assertEquals(Optional.empty(), new Origin.Person(CHAT).idempotencyKey());
    }

    @Test
    void anOriginWithoutItsPartsIsRefused() {
        assertThrows(NullPointerException.class, () -> new Origin.Assistant(CHAT, null, 0, "c"));
        assertThrows(NullPointerException.class, () -> new Origin.Person(null));
    }
}
