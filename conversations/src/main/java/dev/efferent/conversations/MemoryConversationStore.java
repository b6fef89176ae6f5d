package dev.efferent.conversations;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Conversations kept in memory, the default: the last {@code perConversation} messages of the
 * {@code conversations} most recently active conversations; gone when the brain stops.
 */
public final class MemoryConversationStore implements ConversationStore {
    private final int perConversation;
    private final Map<String, ArrayDeque<ConversationEntry>> entries;

    /** A store of the last 200 messages of the 1,000 most recently active conversations. */
    public MemoryConversationStore() {
        this(200, 1_000);
    }

    /** A store of the last {@code perConversation} messages of the {@code conversations} most recent ones. */
    public MemoryConversationStore(int perConversation, int conversations) {
        this.perConversation = perConversation;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, ArrayDeque<ConversationEntry>> eldest) {
                return size() > conversations;
            }
        };
    }

    @Override
    public synchronized void append(ConversationEntry entry) {
        ArrayDeque<ConversationEntry> kept = entries.computeIfAbsent(entry.conversation(), k -> new ArrayDeque<>());
        kept.addLast(entry);
        while (kept.size() > perConversation) {
            kept.removeFirst();
        }
    }

    @Override
    public synchronized List<String> conversations(String prefix, int limit) {
        List<String> keys = new ArrayList<>(entries.keySet());
        Collections.reverse(keys);
        return keys.stream().filter(k -> k.startsWith(prefix)).limit(Math.max(0, limit)).toList();
    }

    @Override
    public synchronized List<ConversationEntry> recent(String key, int limit) {
        ArrayDeque<ConversationEntry> kept = entries.get(key);
        if (kept == null) {
            return List.of();
        }
        List<ConversationEntry> all = new ArrayList<>(kept);
        return List.copyOf(all.subList(Math.max(0, all.size() - limit), all.size()));
    }
}
