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

    /** Who asked for {@code task}; empty for a task that says nothing of it (a raw submit, or text unreadable). */
    public static Optional<Origin> of(Task task) {
        if (task.origin().isPresent()) {
            Optional<Origin> decoded = decode(task.origin().get());
            if (decoded.isEmpty()) {
                LOG.log(System.Logger.Level.WARNING, "Task {0} has an origin this brain cannot read: {1}", task.id(),
                        task.origin().get());
            }
            return decoded;
        }
        return legacy(task);
    }

    private static Optional<Origin> decode(String text) {
        try {
            JsonNode o = JSON.readTree(text);
            Optional<Conversation> c = Conversation.fromKey(o.path("conversation").asText(""));
            return switch (o.path("kind").asText("")) {
                case "person" -> c.map(Origin.Person::new);
                case "assistant" -> c.map(conversation -> new Origin.Assistant(conversation, o.path("turn").asText(),
                        o.path("step").asInt(), o.path("call").asText()));
                case "automation" -> c.map(conversation -> new Origin.Automation(conversation,
                        o.path("run").asText(), o.path("step").asInt()));
                case "schedule" -> c.map(conversation -> new Origin.Schedule(conversation, o.path("id").asText(),
                        Instant.parse(o.path("fire").asText())));
                case "api" -> Optional.of(new Origin.Api(o.path("principal").asText("api")));
                case "mcp" -> Optional.of(new Origin.Mcp(o.path("session").asText("")));
                default -> Optional.empty();
            };
        } catch (JsonProcessingException | DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** The origin of a task stored before origins were, from what it kept then: its session and key. */
    private static Optional<Origin> legacy(Task task) {
        Optional<String> key = task.idempotencyKey();
        Optional<Conversation> conversation = task.session().flatMap(Conversation::fromKey);
        if (key.isPresent() && conversation.isPresent()) {
            String[] parts = key.get().split(":", -1);
            try {
                if (parts.length == 4 && parts[0].equals("assistant") && parts[1].equals("automation")) {
                    return Optional.of(new Origin.Automation(conversation.get(), parts[2], Integer.parseInt(parts[3])));
                }
                if (parts.length >= 4 && parts[0].equals("assistant")) {
                    return Optional.of(new Origin.Assistant(conversation.get(), parts[1], Integer.parseInt(parts[2]),
                            key.get().substring(parts[0].length() + parts[1].length() + parts[2].length() + 3)));
                }
                if (parts.length >= 3 && parts[0].equals("schedule")) {
                    int fire = key.get().indexOf(':', "schedule:".length());
                    return Optional.of(new Origin.Schedule(conversation.get(), key.get().substring("schedule:".length(),
                            fire), Instant.parse(key.get().substring(fire + 1))));
                }
            } catch (NumberFormatException | DateTimeParseException e) {
                return Optional.of(new Origin.Person(conversation.get()));
            }
        }
        if (conversation.isPresent()) {
            return Optional.of(new Origin.Person(conversation.get()));
        }
        return task.session().flatMap(s -> switch (s) {
            case "api" -> Optional.of(new Origin.Api("api"));
            case "mcp" -> Optional.of(new Origin.Mcp(""));
            default -> Optional.empty();
        });
    }
}
