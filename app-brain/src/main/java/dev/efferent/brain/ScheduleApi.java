package dev.efferent.brain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.scheduler.Schedule;
import dev.efferent.scheduler.Scheduler;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;

import java.util.Optional;

/**
 * {@code /api/v1/schedules}: list, make and remove schedules. A schedule made here belongs to the conversation its
 * body names ({@code "conversation": "telegram:42"}, or an API conversation's id), {@code api:schedules} without one.
 */
final class ScheduleApi {
    /** The conversation of schedules made through the API without one. */
    static final String DEFAULT_CONVERSATION = "api:schedules";

    private final Scheduler scheduler;
    private final ObjectMapper json;
    private final Views views;

    ScheduleApi(Scheduler scheduler, ObjectMapper json, Views views) {
        this.scheduler = scheduler;
        this.json = json;
        this.views = views;
    }

    /** {@code GET /schedules[?conversation=…]}. */
    Answer list(ServerRequest req) {
        Optional<String> conversation;
        try {
            conversation = req.query().first("conversation").asOptional().filter(c -> !c.isBlank())
                    .map(ScheduleApi::conversationKey);
        } catch (IllegalArgumentException e) {
            return bad(e.getMessage());
        }
        ObjectNode out = json.createObjectNode();
        var list = out.putArray("schedules");
        conversation.map(scheduler::list).orElseGet(scheduler::list).forEach(s -> list.add(scheduler.toJson(s)));
        return new Answer(Status.OK_200, out);
    }

    /** {@code GET /schedules/{id}}. */
    Answer get(ServerRequest req) {
        String id = req.path().pathParameters().get("id");
        return scheduler.get(id).map(s -> new Answer(Status.OK_200, scheduler.toJson(s)))
                .orElseGet(() -> notFound(id));
    }

    /** {@code POST /schedules}: a body as {@link Scheduler#create(String, JsonNode)} reads it, and a conversation. */
    Answer create(ServerRequest req) {
        String text = req.content().hasEntity() ? req.content().as(String.class) : "";
        JsonNode body;
        try {
            body = json.readTree(text.isBlank() ? "null" : text);
        } catch (JsonProcessingException e) {
            return bad("request body is not valid JSON: " + e.getOriginalMessage());
        }
        if (body == null || !body.isObject()) {
            return bad("the body must be a JSON object such as {\"every\": \"1h\", \"tool\": \"run_shell\", "
                    + "\"params\": {\"command\": \"make test\"}}");
        }
        ObjectNode request = ((ObjectNode) body).deepCopy();
        JsonNode c = request.remove("conversation");
        if (c != null && !c.isTextual()) {
            return bad("field 'conversation' must be a string such as \"telegram:42\" or an API conversation's id");
        }
        try {
            String conversation = c == null ? DEFAULT_CONVERSATION : conversationKey(c.asText());
            Schedule s = scheduler.create(conversation, request);
            return new Answer(Status.CREATED_201, scheduler.toJson(s));
        } catch (IllegalArgumentException e) {
            return bad(e.getMessage());
        }
    }

    /** {@code DELETE /schedules/{id}}. */
    Answer delete(ServerRequest req) {
        String id = req.path().pathParameters().get("id");
        if (!scheduler.delete(id)) {
            return notFound(id);
        }
        return new Answer(Status.OK_200, json.createObjectNode().put("id", id).put("removed", true));
    }

    /** A conversation as given: a key with its channel, or the id of an API conversation. */
    private static String conversationKey(String given) {
        String key = given.contains(":") ? given : "api:" + given;
        return Conversation.fromKey(key).map(Conversation::key).orElseThrow(() -> new IllegalArgumentException(
                "'" + given + "' is not a conversation: write channel:id, e.g. telegram:42, or an API conversation's id"));
    }

    private Answer bad(String message) {
        return new Answer(Status.BAD_REQUEST_400, views.error(400, message));
    }

    private Answer notFound(String id) {
        return new Answer(Status.NOT_FOUND_404, views.error(404, "no schedule with id '" + id + "'"));
    }
}
