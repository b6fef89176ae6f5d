package dev.efferent.conversations;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.queue.Records;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Conversations kept in the queue's {@link Records}, so that they survive a restart wherever the tasks do: with
 * the PostgreSQL queue, in the same database. One record log per conversation, its last {@code perConversation}
 * messages kept, each as one JSON object.
 */
public final class RecordedConversationStore implements ConversationStore {
    private static final System.Logger LOG = System.getLogger(RecordedConversationStore.class.getName());
    private static final String PREFIX = "conversation:";

    private final Records records;
    private final int perConversation;

    /** A store of the last {@code perConversation} messages of each conversation, in {@code records}. */
    public RecordedConversationStore(Records records, int perConversation) {
        if (perConversation < 1) {
            throw new IllegalArgumentException("a conversation keeps at least 1 message, got " + perConversation);
        }
        this.records = records;
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
        records.append(PREFIX + e.conversation(), json.toString(), perConversation);
    }

    @Override
    public List<String> conversations(String prefix, int limit) {
        return records.logs(PREFIX + prefix, limit).stream().map(log -> log.substring(PREFIX.length())).toList();
    }

    @Override
    public List<ConversationEntry> recent(String key, int limit) {
        List<ConversationEntry> entries = new ArrayList<>();
        for (String data : records.tail(PREFIX + key, limit)) {
            read(key, data).ifPresent(entries::add);
        }
        return List.copyOf(entries);
    }

    /** A record this version cannot read (written by hand, or by a later one) is left out, not fatal. */
    private static Optional<ConversationEntry> read(String key, String data) {
        try {
            JsonNode j = CommandHandler.JSON.readTree(data);
            return Optional.of(new ConversationEntry(key, j.path("person").asBoolean(), j.path("kind").asText("text"),
                    j.path("text").asText(""), j.path("ok").asBoolean(true),
                    Optional.ofNullable(j.get("taskId")).map(JsonNode::asText), Instant.parse(j.path("at").asText())));
        } catch (JsonProcessingException | DateTimeParseException e) {
            LOG.log(Level.WARNING, "Left out a message of " + key + " that cannot be read: " + e.getMessage());
            return Optional.empty();
        }
    }
}
