package dev.efferent.conversations;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.router.Stores;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Conversations kept in the store's namespace {@code conversations}, so that they survive a restart wherever the
 * tasks do: with the PostgreSQL store, in the queue's database. One log per conversation, named by its key, its last
 * {@code perConversation} messages kept, each as one JSON object.
 */
public final class RecordedConversationStore implements ConversationStore {
    private static final System.Logger LOG = System.getLogger(RecordedConversationStore.class.getName());
    /** The namespace of the conversations' logs, in the store. */
    public static final Namespace<JsonNode> CONVERSATIONS = new Namespace<>("conversations", Stores.json());

    private final Space<JsonNode> records;
    private final int perConversation;

    /** A store of the last {@code perConversation} messages of each conversation, in {@code store}. */
    public RecordedConversationStore(Store store, int perConversation) {
        if (perConversation < 1) {
            throw new IllegalArgumentException("a conversation keeps at least 1 message, got " + perConversation);
        }
        this.records = store.claim(CONVERSATIONS, "efferent.conversations");
        this.perConversation = perConversation;
    }

    @Override
    public void append(ConversationEntry e) {
        ObjectNode json = CommandHandler.JSON.createObjectNode()
                .put("person", e.fromPerson())
                .put("kind", e.kind())
                .put("text", e.text())
                .put("ok", e.ok())
                .put("at", e.at().toString());
        e.taskId().ifPresent(id -> json.put("taskId", id));
        records.append(e.conversation(), json, perConversation);
    }

    @Override
    public List<String> conversations(String prefix, int limit) {
        return records.logs(prefix, limit);
    }

    @Override
    public List<ConversationEntry> recent(String key, int limit) {
        List<ConversationEntry> entries = new ArrayList<>();
        for (JsonNode data : records.tail(key, limit)) {
            read(key, data).ifPresent(entries::add);
        }
        return List.copyOf(entries);
    }

    /** A record this version cannot read (written by hand, or by a later one) is left out, not fatal. */
    private static Optional<ConversationEntry> read(String key, JsonNode j) {
        try {
            return Optional.of(new ConversationEntry(key, j.path("person").asBoolean(), j.path("kind").asText("text"),
                    j.path("text").asText(""), j.path("ok").asBoolean(true),
                    Optional.ofNullable(j.get("taskId")).map(JsonNode::asText), Instant.parse(j.path("at").asText())));
        } catch (DateTimeParseException e) {
            LOG.log(Level.WARNING, "Left out a message of " + key + " that cannot be read: " + e.getMessage());
            return Optional.empty();
        }
    }
}
