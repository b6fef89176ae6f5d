package dev.efferent.conversations;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One message of a conversation.
 *
 * @param conversation the conversation's key, {@code channel:id}
 * @param fromPerson   whether the person wrote it (else the assistant sent it)
 * @param kind         what the assistant sent: {@code text}, {@code result}, {@code image}, {@code streamed},
 *                     {@code prompt}; {@code text} for what the person wrote
 * @param text         its text
 * @param ok           for a {@code result}: whether the task completed without error
 * @param taskId       the task it is about, if any
 * @param at           when it was said
 */
public record ConversationEntry(String conversation, boolean fromPerson, String kind, String text, boolean ok,
                                Optional<String> taskId, Instant at) {
    public ConversationEntry {
        Objects.requireNonNull(conversation, "conversation");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(at, "at");
    }
}
