package dev.efferent.calls;

import dev.efferent.channel.spi.Conversation;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class OriginsTest {
    private static final Conversation CHAT = new Conversation("console", "tab-1");

    @Test
    void everyKindOfOriginReadsBackAsWritten() {
        for (Origin origin : List.of(new Origin.Person(CHAT), new Origin.Assistant(CHAT, "t1", 3, "call:7"),
                new Origin.Automation(CHAT, "r1", 2), new Origin.Schedule(CHAT, "s1", Instant.parse(
                        "2026-11-28T10:00:00Z")), new Origin.Api("api"), new Origin.Mcp("8f2c"))) {
            Task task = task(origin.browserSession(), Origins.encode(origin), origin.idempotencyKey().orElse(""));
            assertEquals(Optional.of(origin), Origins.of(task), origin.toString());
        }
    }

    @Test
    void aTaskFromBeforeOriginsIsReadFromItsSessionAndKey() {
        assertEquals(Optional.of(new Origin.Assistant(CHAT, "t1", 3, "call:7")),
                Origins.of(task("console:tab-1", "", "assistant:t1:3:call:7")));
        assertEquals(Optional.of(new Origin.Automation(CHAT, "r1", 2)),
                Origins.of(task("console:tab-1", "", "assistant:automation:r1:2")));
        assertEquals(Optional.of(new Origin.Schedule(CHAT, "s1", Instant.parse("2026-11-28T10:00:00Z"))),
                Origins.of(task("console:tab-1", "", "schedule:s1:2026-11-28T10:00:00Z")));
        assertEquals(Optional.of(new Origin.Person(CHAT)),
                Origins.of(task("console:tab-1", "", "")));
        assertEquals(Optional.of(new Origin.Api("api")), Origins.of(task("api", "", "my-key")));
        assertEquals(Optional.empty(), Origins.of(task("", "", "")));
    }

    @Test
    void aKeyFromBeforeOriginsIsKnownByItsPrefixEvenWhenItsPartsDoNotParse() {
        Origin assistant = Origins.of(task("console:tab-1", "", "assistant:x"))
                .orElseThrow();
        Origin automation = Origins.of(task("console:tab-1", "", "assistant:automation:r1:two")).orElseThrow();
        Origin schedule = Origins.of(task("console:tab-1", "", "schedule:s1:yesterday")).orElseThrow();

        assertEquals(new Origin.Assistant(CHAT, "x", 0, ""), assistant);
        assertEquals(new Origin.Automation(CHAT, "r1", 0), automation);
        assertEquals(new Origin.Schedule(CHAT, "s1", Instant.EPOCH), schedule);
        // What the checkpoints and /record decide from: the same as the prefixes decided.
        assertEquals(List.of(true, true, false), List.of(assistant.standing().reportedByCaller(),
                automation.standing().reportedByCaller(), schedule.standing().reportedByCaller()));
        assertEquals(List.of(true, false, false), List.of(assistant.standing().recordable(),
                automation.standing().recordable(), schedule.standing().recordable()));
    }

    @Test
    void anOriginThatCannotBeReadIsReadFromTheTasksSessionAndKeyInstead() {
        // Strict: a missing or mistyped part, or a conversation that is not one, is not taken for an origin.
        for (String bad : List.of("{\"kind\":\"assistant\",\"conversation\":\"console:tab-1\",\"turn\":\"t1\"}",
                "{\"kind\":\"automation\",\"conversation\":\"console:tab-1\",\"run\":\"r1\",\"step\":\"2\"}",
                "{\"kind\":\"person\",\"conversation\":\"no-colon\"}",
                "{\"kind\":\"person\",\"conversation\":\" : \"}",
                "{\"kind\":\"schedule\",\"conversation\":\"console:tab-1\",\"id\":\"s\",\"fire\":\"soon\"}",
                "[]")) {
            assertEquals(Optional.of(new Origin.Person(CHAT)), Origins.of(task("console:tab-1", bad, "")), bad);
        }
        assertEquals(Optional.of(new Origin.Person(CHAT)), Origins.of(task("console:tab-1", "{not json", "")));
        assertEquals(Optional.empty(), Origins.of(task("nowhere", "{\"kind\":\"alien\"}", "")));
        // Only the task's own origin counts: a forged kind in the key of a task that has one changes nothing.
        assertEquals(Optional.of(new Origin.Person(CHAT)), Origins.of(task("console:tab-1",
                Origins.encode(new Origin.Person(CHAT)), "assistant:t1:1:c1")));
    }

    /** A task with the {@code session}, {@code origin} and idempotency {@code key} given; an empty one for none. */
    private static Task task(String session, String origin, String key) {
        Instant now = Instant.EPOCH;
        return new Task("t1", "read_file", "{}", 5, TaskStatus.QUEUED, 0, 1, now, Duration.ofMinutes(5),
                Optional.empty(), given(session), given(origin), given(key), Optional.empty(), Optional.empty(),
                Optional.empty(),
                Optional.empty(), now, now, Optional.empty(), Optional.empty());
    }

    private static Optional<String> given(String value) {
        return Optional.of(value).filter(v -> !v.isEmpty());
    }
}
