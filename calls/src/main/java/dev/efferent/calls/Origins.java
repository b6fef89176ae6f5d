package dev.efferent.calls;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.queue.Task;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * An {@link Origin} as a task keeps it: JSON text in the task's {@code origin} field, written and read only here. A
 * task stored before origins were (PostgreSQL migration 6) has none; its origin is read from its session and its
 * idempotency key, as they were written then, until such tasks are gone (finished ones after
 * {@code tasks.retention}).
 */
public final class Origins {
    private static final System.Logger LOG = System.getLogger(Origins.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();

    private Origins() {
    }

    /** {@code origin} as the text a task keeps. */
    public static String encode(Origin origin) {
        ObjectNode o = JSON.createObjectNode();
        switch (origin) {
            case Origin.Person p -> o.put("kind", "person").put("conversation", p.conversation().key());
            case Origin.Assistant a -> o.put("kind", "assistant").put("conversation", a.conversation().key())
                    .put("turn", a.turn()).put("step", a.step()).put("call", a.call());
            case Origin.Automation a -> o.put("kind", "automation").put("conversation", a.conversation().key())
                    .put("run", a.run()).put("step", a.step());
            case Origin.Schedule s -> o.put("kind", "schedule").put("conversation", s.conversation().key())
                    .put("id", s.id()).put("fire", s.fire().toString());
            case Origin.Api a -> o.put("kind", "api").put("principal", a.principal());
            case Origin.Mcp m -> o.put("kind", "mcp").put("session", m.session());
        }
        return o.toString();
    }

    /**
     * Who asked for {@code task}; empty for a task that says nothing of it (a raw submit). An origin this brain cannot
     * read (a newer brain's, over the same database) is said, and the task is read as one stored before origins were.
     */
    public static Optional<Origin> of(Task task) {
        if (task.origin().isPresent()) {
            Optional<Origin> decoded = decode(task.origin().get());
            if (decoded.isPresent()) {
                return decoded;
            }
            LOG.log(System.Logger.Level.WARNING, "Task {0} has an origin this brain cannot read, so it is read from "
                    + "its session and key instead: {1}", task.id(), task.origin().get());
        }
        return legacy(task);
    }

    private static Optional<Origin> decode(String text) {
        try {
            JsonNode o = JSON.readTree(text);
            return Optional.of(switch (text(o, "kind")) {
                case "person" -> new Origin.Person(conversation(o));
                case "assistant" -> new Origin.Assistant(conversation(o), text(o, "turn"), number(o, "step"),
                        text(o, "call"));
                case "automation" -> new Origin.Automation(conversation(o), text(o, "run"), number(o, "step"));
                case "schedule" -> new Origin.Schedule(conversation(o), text(o, "id"), Instant.parse(text(o, "fire")));
                case "api" -> new Origin.Api(text(o, "principal"));
                case "mcp" -> new Origin.Mcp(text(o, "session"));
                default -> throw new IllegalArgumentException("unknown kind '" + o.path("kind").asText() + "'");
            });
        } catch (JsonProcessingException | DateTimeParseException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String text(JsonNode o, String field) {
        if (!o.path(field).isTextual()) {
            throw new IllegalArgumentException("'" + field + "' is not text");
        }
        return o.get(field).asText();
    }

    private static int number(JsonNode o, String field) {
        if (!o.path(field).canConvertToInt()) {
            throw new IllegalArgumentException("'" + field + "' is not a whole number");
        }
        return o.get(field).asInt();
    }

    private static Conversation conversation(JsonNode o) {
        String key = text(o, "conversation");
        return Conversation.fromKey(key).orElseThrow(() -> new IllegalArgumentException("'" + key
                + "' is not a conversation"));
    }

    /**
     * The origin of a task stored before origins were, from what it kept then: its session and key. The key's prefix
     * alone decides the kind, as it did then; parts that do not parse are kept as they are.
     */
    private static Optional<Origin> legacy(Task task) {
        Optional<Conversation> conversation;
        try {
            conversation = task.session().flatMap(Conversation::fromKey);
        } catch (IllegalArgumentException e) {
            conversation = Optional.empty();
        }
        if (conversation.isEmpty()) {
            return task.session().flatMap(s -> switch (s) {
                case "api" -> Optional.of(new Origin.Api("api"));
                case "mcp" -> Optional.of(new Origin.Mcp(""));
                default -> Optional.empty();
            });
        }
        Conversation c = conversation.get();
        String key = task.idempotencyKey().orElse("");
        if (key.startsWith("assistant:automation:")) {
            String rest = key.substring("assistant:automation:".length());
            int colon = rest.lastIndexOf(':');
            return Optional.of(new Origin.Automation(c, colon < 0 ? rest : rest.substring(0, colon),
                    colon < 0 ? 0 : step(rest.substring(colon + 1))));
        }
        if (key.startsWith("assistant:")) {
            String[] parts = key.substring("assistant:".length()).split(":", 3);
            return Optional.of(new Origin.Assistant(c, parts[0], parts.length > 1 ? step(parts[1]) : 0,
                    parts.length > 2 ? parts[2] : ""));
        }
        if (key.startsWith("schedule:")) {
            String rest = key.substring("schedule:".length());
            int colon = rest.indexOf(':');
            Instant fire;
            try {
                fire = colon < 0 ? Instant.EPOCH : Instant.parse(rest.substring(colon + 1));
            } catch (DateTimeParseException e) {
                fire = Instant.EPOCH;
            }
            return Optional.of(new Origin.Schedule(c, colon < 0 ? rest : rest.substring(0, colon), fire));
        }
        // A sub-agent's own calls had a key; a task of its conversation without one was a person's command.
        return Optional.of(new Origin.Person(c));
    }

    private static int step(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
