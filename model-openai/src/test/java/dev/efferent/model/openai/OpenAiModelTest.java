package dev.efferent.model.openai;

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
import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The OpenAI-compatible provider against a real HTTP server speaking the protocol. */
class OpenAiModelTest {
    private static final ModelTool READ_FILE = new ModelTool("read_file", "Reads a file",
            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}");
    private static final ModelRequest ASK = new ModelRequest("You are helpful.",
            List.of(new ModelMessage.User("What is in notes.txt?")), List.of(READ_FILE));

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
        Map<String, String> values = new HashMap<>(Map.of("base-url", server.openAiBaseUrl(), "name", "test-model",
                "api-key", "sk-test", "retry-backoff", "50ms"));
        values.putAll(extra);
        return new OpenAiModelProvider().open(key -> Optional.ofNullable(values.get(key)));
    }

    @Test
    void streamsTextAndSendsTheConversationAndTools() throws Exception {
        server.then(Step.Reply.text("The file says hello."));
        List<String> pieces = new CopyOnWriteArrayList<>();
        ModelReply reply = model(Map.of()).complete(new ModelRequest("You are helpful.", List.of(
                new ModelMessage.User("read it"),
                new ModelMessage.Assistant("", List.of(new ToolCall("call_1", "read_file", "{\"path\":\"notes.txt\"}"))),
                new ModelMessage.ToolResult("call_1", "read_file", "hello", false)), List.of(READ_FILE)), pieces::add);
        assertEquals("The file says hello.", reply.text());
        assertEquals(ModelReply.Finish.STOP, reply.finish());
        assertTrue(pieces.size() > 1, "streamed in pieces: " + pieces);
        assertEquals("The file says hello.", String.join("", pieces));
        assertEquals(new Usage(10, 20), reply.usage());

        Received r = server.received().getFirst();
        assertEquals("/v1/chat/completions", r.path());
        assertEquals("Bearer sk-test", r.headers().get("authorization"));
        JsonNode body = r.body();
        assertEquals("test-model", body.path("model").asText());
        assertTrue(body.path("stream").asBoolean());
        assertTrue(body.path("stream_options").path("include_usage").asBoolean());
        JsonNode messages = body.path("messages");
        assertEquals(List.of("system", "user", "assistant", "tool"), List.of(messages.get(0).path("role").asText(),
                messages.get(1).path("role").asText(), messages.get(2).path("role").asText(),
                messages.get(3).path("role").asText()));
        assertEquals("read_file", messages.get(2).path("tool_calls").get(0).path("function").path("name").asText());
        assertEquals("call_1", messages.get(3).path("tool_call_id").asText());
        assertEquals("hello", messages.get(3).path("content").asText());
        assertEquals("read_file", body.path("tools").get(0).path("function").path("name").asText());
        assertEquals("object", body.path("tools").get(0).path("function").path("parameters").path("type").asText());
    }

    @Test
    void joinsStreamedToolCallFragments() {
        server.then(Step.Reply.call("read_file", "{\"path\":\"notes.txt\"}"));
        ModelReply reply = model(Map.of()).complete(ASK, d -> {
        });
        assertEquals(ModelReply.Finish.TOOL_CALLS, reply.finish());
        assertEquals(1, reply.toolCalls().size());
        assertEquals("read_file", reply.toolCalls().getFirst().name());
        assertEquals("{\"path\":\"notes.txt\"}", reply.toolCalls().getFirst().arguments());
    }

    @Test
    void readsAWholeAnswerWhenStreamingIsOff() {
        server.then(Step.Reply.call("read_file", "{\"path\":\"a\"}"));
        ModelReply reply = model(Map.of("stream", "false")).complete(ASK, d -> {
        });
        assertEquals("{\"path\":\"a\"}", reply.toolCalls().getFirst().arguments());
        assertTrue(server.received().getFirst().body().path("stream").isMissingNode());
    }

    @Test
    void aRefusedKeyIsNamedWithTheServersWords() {
        server.then(Step.Fail.of(401, "Incorrect API key provided: sk-test"));
        ModelException e = assertThrows(ModelException.class, () -> model(Map.of()).complete(ASK, d -> {
        }));
        assertEquals(ModelException.Kind.REFUSED, e.kind());
        assertEquals("openai at " + server.openAiBaseUrl() + " refused the request (401): Incorrect API key provided: "
                + "sk-test. Check the API key (model.api-key (EFFERENT_MODEL_API__KEY) or OPENAI_API_KEY).", e.getMessage());
        assertEquals(1, server.received().size(), "a 4xx is never retried");
    }

    @Test
    void aRateLimitIsWaitedOutAsTheServerAsks() {
        server.then(new Step.Fail(429, "{\"error\":{\"message\":\"slow down\"}}", Map.of("Retry-After", "0.2")),
                Step.Reply.text("ok"));
        assertEquals("ok", model(Map.of()).complete(ASK, d -> {
        }).text());
        assertEquals(2, server.received().size());
    }

    @Test
    void aServerThatKeepsFailingIsGivenUpOnAfterTheRetries() {
        for (int i = 0; i < 5; i++) {
            server.then(Step.Fail.of(500, "internal error"));
        }
        ModelException e = assertThrows(ModelException.class, () -> model(Map.of("max-retries", "3")).complete(ASK,
                d -> {
                }));
        assertEquals(ModelException.Kind.SERVER_ERROR, e.kind());
        assertEquals("openai at " + server.openAiBaseUrl() + " failed (500, 4 tries): internal error. Try again later.",
                e.getMessage());
        assertEquals(4, server.received().size());
    }

    @Test
    void aServerThatIsDownIsNamed() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Model down = new OpenAiModelProvider().open(settings(Map.of("base-url", "http://127.0.0.1:" + port + "/v1",
                "name", "m", "max-retries", "1", "retry-backoff", "10ms")));
        ModelException e = assertThrows(ModelException.class, () -> down.complete(ASK, d -> {
        }));
        assertEquals(ModelException.Kind.UNREACHABLE, e.kind());
        assertTrue(e.getMessage().startsWith("Could not reach openai at http://127.0.0.1:" + port + "/v1"), e.getMessage());
        assertTrue(e.getMessage().endsWith("Check model.base-url (EFFERENT_MODEL_BASE__URL)."), e.getMessage());
        assertTrue(e.getMessage().contains(": the connection was refused."), e.getMessage());
    }

    @Test
    void aConversationTooLongForTheModelSaysWhatToDo() {
        server.then(new Step.Fail(400, "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\","
                + "\"code\":\"context_length_exceeded\"}}", Map.of()));
        ModelException e = assertThrows(ModelException.class, () -> model(Map.of()).complete(ASK, d -> {
        }));
        assertEquals(ModelException.Kind.CONTEXT_TOO_LONG, e.kind());
        assertTrue(e.getMessage().contains("Send /new"), e.getMessage());
    }

    @Test
    void aServerThatNeverAnswersTimesOut() {
        server.then(new Step.Hang(Duration.ofSeconds(10)));
        ModelException e = assertThrows(ModelException.class, () -> model(Map.of("timeout", "500ms")).complete(ASK,
                d -> {
                }));
        assertEquals(ModelException.Kind.TIMEOUT, e.kind());
        assertTrue(e.getMessage().contains("did not answer within 500 ms"), e.getMessage());
    }

    @Test
    void aServerThatStopsInTheMiddleOfAStreamTimesOut() {
        server.then(Step.Reply.text("a long answer that takes its time").slowly(Duration.ofMillis(400)));
        ModelException e = assertThrows(ModelException.class, () -> model(Map.of("timeout", "1s")).complete(ASK,
                d -> {
                }));
        assertEquals(ModelException.Kind.TIMEOUT, e.kind());
    }

    @Test
    void anInterruptStopsTheCall() throws Exception {
        server.then(new Step.Hang(Duration.ofSeconds(10)));
        Model model = model(Map.of());
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        Thread call = Thread.ofVirtual().start(() -> {
            try {
                model.complete(ASK, d -> {
                });
                failed.complete(null);
            } catch (RuntimeException e) {
                failed.complete(e);
            }
        });
        server.next(Duration.ofSeconds(5));
        call.interrupt();
        assertTrue(failed.get(5, TimeUnit.SECONDS) instanceof CancellationException);
    }

    @Test
    void anAnswerThatIsNotTheProtocolIsMalformed() {
        server.otherwise(r -> new Step.Fail(200, "<html>not an API</html>", Map.of()));
        ModelException e = assertThrows(ModelException.class, () -> model(Map.of("stream", "false")).complete(ASK,
                d -> {
                }));
        assertEquals(ModelException.Kind.MALFORMED, e.kind());
    }

    @Test
    void aServerThatStreamsWithoutEndIsCutOff() {
        server.then(Step.Reply.text("x".repeat(1_100_000)).inPiecesOf(10_000));
        ModelException e = assertThrows(ModelException.class, () -> model(Map.of()).complete(ASK, d -> {
        }));
        assertEquals(ModelException.Kind.MALFORMED, e.kind());
        assertTrue(e.getMessage().contains("longer than 1000000 characters"), e.getMessage());
    }

    @Test
    void aNameRepeatedInEveryFragmentIsTakenOnce() {
        server.then(Step.Reply.calls(List.of(new Step.Call("c1", "read_file", "{\"path\":\"a\"}"))));
        assertEquals("read_file", model(Map.of()).complete(ASK, d -> {
        }).toolCalls().getFirst().name());
    }

    @Test
    void badSettingsAreNamed() {
        SettingsException noName = assertThrows(SettingsException.class,
                () -> new OpenAiModelProvider().open(settings(Map.of())));
        assertEquals("setting 'name' must name the model, e.g. llama3.2 for Ollama or gpt-4o-mini for OpenAI",
                noName.getMessage());
        SettingsException badUrl = assertThrows(SettingsException.class,
                () -> new OpenAiModelProvider().open(settings(Map.of("name", "m", "base-url", "localhost:11434"))));
        assertTrue(badUrl.getMessage().startsWith("setting 'base-url' must be an http or https URL"), badUrl.getMessage());
        SettingsException badTemperature = assertThrows(SettingsException.class,
                () -> new OpenAiModelProvider().open(settings(Map.of("name", "m", "temperature", "hot"))));
        assertEquals("setting 'temperature' must be a number from 0 to 2, got 'hot'", badTemperature.getMessage());
    }

    private static Settings settings(Map<String, String> values) {
        return key -> Optional.ofNullable(values.get(key));
    }
}
