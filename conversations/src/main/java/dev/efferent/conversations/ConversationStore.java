package dev.efferent.conversations;

import java.util.List;

/**
 * What was said in each conversation, so that a console reloaded, or a channel reconnected, can show it again,
 * and so that the assistant can read the conversation so far.
 */
public interface ConversationStore {
    /** Keeps {@code entry}. */
    void append(ConversationEntry entry);

    /** The last {@code limit} entries of the conversation {@code key} ({@code channel:id}), oldest first. */
    List<ConversationEntry> recent(String key, int limit);

    /** The keys of the conversations whose key starts with {@code prefix}, most recently active first. */
    List<String> conversations(String prefix, int limit);
}
