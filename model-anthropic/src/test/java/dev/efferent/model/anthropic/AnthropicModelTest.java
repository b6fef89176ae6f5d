package dev.efferent.model.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.model.scripted.Received;
import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.model.scripted.Step;
import dev.efferent.model.spi.Model;
import dev.efferent.model.spi.ModelException;
import dev.efferent.model.spi.ModelMessage;
import dev.efferent.model.spi.ModelReply;
import dev.efferent.model.spi.ModelRequest;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.model.spi.ToolCall;
import dev.efferent.model.spi.Usage;
import dev.efferent.plugin.SettingsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Anthropic provider against a real HTTP server speaking the Messages protocol. */
class AnthropicModelTest {
    private static final ModelTool READ_FILE = new ModelTool("read_file", "Reads a file",
            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}");

    private ScriptedModelServer server;

    @BeforeEach
    void start() throws Exception {
        server = ScriptedModelServer.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Model model(Map<String, String> extra) {
        Map<String, String> values = new HashMap<>(Map.of("base-url", server.anthropicBaseUrl(),
                "name", "claude-test", "api-key", "sk-ant-test", "retry-backoff", "50ms"));
        values.putAll(extra);
        return new AnthropicModelProvider().open(key -> Optional.ofNullable(values.get(key)));
    }

    @Test
    void streamsAToolUseAndSendsToolResultsInOneUserMessage() {
        server.then(Step.Reply.call("read_file", "{\"path\":\"notes.txt\"}"));
        ModelReply reply = model(Map.of()).complete(new ModelRequest("Be brief.", List.of(
                new ModelMessage.User("read both"),
                new ModelMessage.Assistant("Reading.", List.of(new ToolCall("toolu_1", "read_file", "{\"path\":\"a\"}"),
                        new ToolCall("toolu_2", "read_file", "{\"path\":\"b\"}"))),
                new ModelMessage.ToolResult("toolu_1", "read_file", "A", false),
                new ModelMessage.ToolResult("toolu_2", "read_file", "no such file", true)), List.of(READ_FILE)), d -> {
        });
        assertEquals(ModelReply.Finish.TOOL_CALLS, reply.finish());
        assertEquals("read_file", reply.toolCalls().getFirst().name());
        assertEquals("{\"path\":\"notes.txt\"}", reply.toolCalls().getFirst().arguments());

        Received r = server.received().getFirst();
        assertEquals("/v1/messages", r.path());
        assertEquals("sk-ant-test", r.headers().get("x-api-key"));
        assertEquals(AnthropicModel.VERSION, r.headers().get("anthropic-version"));
        JsonNode body = r.body();
        assertEquals("Be brief.", body.path("system").asText());
        JsonNode messages = body.path("messages");
        assertEquals(3, messages.size(), "user, assistant, then both results in one user message: " + messages);
        assertEquals("tool_use", messages.get(1).path("content").get(1).path("type").asText());
        assertEquals("a", messages.get(1).path("content").get(1).path("input").path("path").asText());
        JsonNode results = messages.get(2).path("content");
        assertEquals("toolu_1", results.get(0).path("tool_use_id").asText());
        assertTrue(results.get(1).path("is_error").asBoolean());
        assertEquals("read_file", body.path("tools").get(0).path("name").asText());
        assertEquals("object", body.path("tools").get(0).path("input_schema").path("type").asText());
    }

    @Test
    void anAnswerThatSaidNothingIsLeftOutOfTheHistory() {
        server.then(Step.Reply.text("ok"));
        model(Map.of()).complete(new ModelRequest("", List.of(new ModelMessage.User("hi"),
                new ModelMessage.Assistant("", List.of()), new ModelMessage.User("hello?")), List.of()), d -> {
        });
        JsonNode messages = server.received().getFirst().body().path("messages");
        assertEquals(1, messages.size(), "the two user messages join, the empty answer is dropped: " + messages);
        assertEquals(2, messages.get(0).path("content").size());
    }

    @Test
    void aTemperatureAboveOneIsRefused() {
        SettingsException e = assertThrows(SettingsException.class,
                () -> model(Map.of("temperature", "1.5")));
        assertEquals("setting 'temperature' must be from 0 to 1 for Anthropic's models, got 1.5", e.getMessage());
    }

    @Test
    void streamsText() {
        server.then(Step.Reply.text("Hello there, friend."));
        List<String> pieces = new CopyOnWriteArrayList<>();
        ModelReply reply = model(Map.of()).complete(new ModelRequest("", List.of(new ModelMessage.User("hi")),
                List.of()), pieces::add);
        assertEquals("Hello there, friend.", reply.text());
        assertEquals(ModelReply.Finish.STOP, reply.finish());
        assertTrue(pieces.size() > 1, pieces.toString());
        assertEquals(new Usage(10, 20), reply.usage());
    }

    @Test
    void readsAWholeAnswer() {
        server.then(Step.Reply.text("whole"));
        ModelReply reply = model(Map.of("stream", "false")).complete(new ModelRequest("",
                List.of(new ModelMessage.User("hi")), List.of()), d -> {
        });
        assertEquals("whole", reply.text());
    }

    @Test
    void refusalsAndOverloadsAreWorded() {
        server.then(new Step.Fail(401, "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
                + "\"message\":\"invalid x-api-key\"}}", Map.of()));
        ModelException refused = assertThrows(ModelException.class, () -> model(Map.of()).complete(
                new ModelRequest("", List.of(new ModelMessage.User("hi")), List.of()), d -> {
                }));
        assertEquals(ModelException.Kind.REFUSED, refused.kind());
        assertTrue(refused.getMessage().contains("(401): invalid x-api-key. Check the API key (model.api-key "
                + "(EFFERENT_MODEL_API__KEY) or ANTHROPIC_API_KEY)."), refused.getMessage());

        server.then(Step.Fail.of(529, "Overloaded"), Step.Reply.text("fine now"));
        assertEquals("fine now", model(Map.of()).complete(new ModelRequest("", List.of(new ModelMessage.User("hi")),
                List.of()), d -> {
        }).text());
    }
}
