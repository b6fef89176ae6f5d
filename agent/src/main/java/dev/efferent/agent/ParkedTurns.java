package dev.efferent.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.model.spi.ModelMessage;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Turns set aside until their tasks finish, kept in the store (with PostgreSQL, in the database). */
final class ParkedTurns {
    private static final System.Logger LOG = System.getLogger(ParkedTurns.class.getName());
    /** More turns than wait at once; a list past it is cut rather than read without end. */
    private static final int MAX = 10_000;

    /** A call the turn waits for. */
    record Pending(String callId, String tool, String taskId) {
    }

    /**
     * A parked turn.
     *
     * @param turnId       its id
     * @param conversation its conversation's key
     * @param messages     the turn's messages so far, ending with the model's tool calls
     * @param answered     the results of the calls already answered, by call id
     * @param pending      the calls whose tasks it waits for
     * @param steps        model calls made so far
     * @param parkedAt     when it was parked
     */
    record Parked(String turnId, String conversation, List<ModelMessage> messages,
                  Map<String, ModelMessage.ToolResult> answered, List<Pending> pending, int steps, Instant parkedAt) {
    }

    /** Each parked turn by its id, as JSON text read one by one: one that cannot be read is dropped alone. */
    private final Space<String> records;
    private final Messages messages;
    private final ObjectMapper json;

    ParkedTurns(Store store, Messages messages, ObjectMapper json) {
        this.records = store.claim(new Namespace<>("agent.parked", Codec.text()), Agent.OWNER);
        this.messages = messages;
        this.json = json;
    }

    void park(Parked p) {
        ObjectNode o = json.createObjectNode().put("turn", p.turnId()).put("conversation", p.conversation())
                .put("steps", p.steps()).put("parkedAt", p.parkedAt().toString());
        o.set("messages", messages.toJson(p.messages()));
        o.set("answered", messages.toJson(List.copyOf(p.answered().values())));
        ArrayNode pending = o.putArray("pending");
        p.pending().forEach(c -> pending.addObject().put("call", c.callId()).put("tool", c.tool()).put("task", c.taskId()));
        records.put(p.turnId(), o.toString());
    }

    Optional<Parked> get(String turnId) {
        return records.get(turnId).flatMap(data -> read(turnId, data));
    }

    boolean remove(String turnId) {
        return records.remove(turnId);
    }

    /** Every parked turn. */
    List<Parked> all() {
        List<Parked> all = new ArrayList<>();
        records.entries(MAX).forEach((key, data) -> read(key, data).ifPresent(all::add));
        return all;
    }

    private Optional<Parked> read(String turnId, String data) {
        try {
            JsonNode o = json.readTree(data);
            Map<String, ModelMessage.ToolResult> answered = new LinkedHashMap<>();
            for (ModelMessage m : messages.fromJson((ArrayNode) o.path("answered"))) {
                ModelMessage.ToolResult r = (ModelMessage.ToolResult) m;
                answered.put(r.callId(), r);
            }
            List<Pending> pending = new ArrayList<>();
            o.path("pending").forEach(c -> pending.add(new Pending(c.path("call").asText(), c.path("tool").asText(),
                    c.path("task").asText())));
            return Optional.of(new Parked(turnId, o.path("conversation").asText(),
                    messages.fromJson((ArrayNode) o.path("messages")), answered, pending, o.path("steps").asInt(),
                    Instant.parse(o.path("parkedAt").asText())));
        } catch (JsonProcessingException | RuntimeException e) {
            // It can never resume; kept, it would be reported on every pass over the parked turns.
            LOG.log(Level.WARNING, "Parked turn " + turnId + " cannot be read and is dropped: " + e.getMessage()
                    + "; its data was: " + data);
            records.remove(turnId);
            return Optional.empty();
        }
    }
}
