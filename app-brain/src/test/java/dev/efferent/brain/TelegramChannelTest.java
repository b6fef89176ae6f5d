package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.model.scripted.Step;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Telegram channel against a fake Bot API on loopback (real HTTP): in, reply and checkpoints out, strangers refused. */
class TelegramChannelTest extends BrainFixture {
    private static final String TOKEN_PATH = "/bot123:abc";
    private final BlockingQueue<JsonNode> updates = new LinkedBlockingQueue<>();
    private final List<JsonNode> sent = new CopyOnWriteArrayList<>();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private HttpServer bot;

    private void startFakeBotApi() throws IOException {
        bot = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        bot.createContext(TOKEN_PATH + "/getUpdates", exchange -> {
            ArrayNode result = JSON.createArrayNode();
            try {
                JsonNode first = updates.poll(500, TimeUnit.MILLISECONDS);
                for (JsonNode n = first; n != null; n = updates.poll()) {
                    result.add(n);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            respond(exchange, "{\"ok\":true,\"result\":" + result + "}");
        });
        bot.createContext(TOKEN_PATH + "/sendMessage", exchange -> {
            sent.add(JSON.readTree(exchange.getRequestBody().readAllBytes()));
            respond(exchange, "{\"ok\":true,\"result\":{\"message_id\":" + (1000 + sent.size()) + "}}");
        });
        for (String method : List.of("answerCallbackQuery", "editMessageReplyMarkup")) {
            bot.createContext(TOKEN_PATH + "/" + method, exchange -> {
                calls.add(method + " " + JSON.readTree(exchange.getRequestBody().readAllBytes()));
                respond(exchange, "{\"ok\":true,\"result\":true}");
            });
        }
        bot.setExecutor(Executors.newCachedThreadPool());
        bot.start();
    }

    private static void respond(HttpExchange exchange, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private void update(int id, long chat, String user, String text) {
        updates.add(JSON.createObjectNode().put("update_id", id).set("message", JSON.createObjectNode()
                .put("text", text)
                .<ObjectNode>set("chat", JSON.createObjectNode().put("id", chat))
                .set("from", JSON.createObjectNode().put("username", user))));
    }

    private List<String> textsTo(long chat) {
        return sent.stream().filter(m -> m.path("chat_id").asLong() == chat).map(m -> m.path("text").asText()).toList();
    }

    private void awaitSent(long chat, String containing) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < end) {
            if (textsTo(chat).stream().anyMatch(t -> t.contains(containing))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("nothing containing '" + containing + "' was sent to chat " + chat + "; sent: " + sent);
    }

    @AfterEach
    void stopBot() {
        if (bot != null) {
            bot.stop(0);
        }
    }

    @Test
    void aQuestionComesWithButtonsAndAPressedButtonAnswersIt() throws Exception {
        startFakeBotApi();
        Files.createDirectories(brainRoot().resolve("build"));
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"))
                    .then(r -> Step.Reply.text("Cleaned up."));
            startBrain(false, Map.of(
                    "channels.telegram.enabled", "true",
                    "channels.telegram.base-url", "http://127.0.0.1:" + bot.getAddress().getPort(),
                    "channels.telegram.bot-token", "123:abc",
                    "channels.telegram.allowed-chats", "42",
                    "channels.telegram.poll-timeout", "1s",
                    "model.base-url", model.openAiBaseUrl(),
                    "model.name", "scripted"));
            update(1, 42, "owner", "clean the build folder");
            awaitSent(42, "Allow run_shell on brain? Command: rm -rf build");
            JsonNode question = sent.stream().filter(m -> m.path("text").asText().startsWith("Allow run_shell"))
                    .findFirst().orElseThrow();
            JsonNode buttons = question.path("reply_markup").path("inline_keyboard").get(0);
            assertEquals(List.of("Allow once", "Allow always", "Deny"), List.of(buttons.get(0).path("text").asText(),
                    buttons.get(1).path("text").asText(), buttons.get(2).path("text").asText()));
            String once = buttons.get(0).path("callback_data").asText();
            assertTrue(once.startsWith("/approve ") && once.endsWith(" once"), once);

            updates.add(JSON.createObjectNode().put("update_id", 2).set("callback_query", JSON.createObjectNode()
                    .put("id", "cb1").put("data", once)
                    .<ObjectNode>set("from", JSON.createObjectNode()
                            .put("username", "owner"))
                    .set("message", JSON.createObjectNode().put("message_id", 77)
                            .set("chat", JSON.createObjectNode().put("id", 42)))));
            awaitSent(42, "Cleaned up.");
            assertTrue(Files.notExists(brainRoot().resolve("build")), "allowed from the button, it ran");
            assertTrue(calls.stream().anyMatch(c -> c.startsWith("answerCallbackQuery") && c.contains("cb1")), calls.toString());
            assertTrue(calls.stream().anyMatch(c -> c.startsWith("editMessageReplyMarkup") && c.contains("77")
                    && c.contains("\"inline_keyboard\":[]")), "the buttons are removed: " + calls);

            // Answered another way (typed): the buttons of that question go too.
            Files.createDirectories(brainRoot().resolve("build"));
            model.then(Step.Reply.call("run_shell", "{\"command\":\"rm -rf build\"}"))
                    .then(r -> Step.Reply.text("Kept it."));
            calls.clear();
            update(3, 42, "owner", "clean it again");
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            JsonNode again = null;
            while (again == null && System.nanoTime() < end) {
                again = sent.stream().filter(m -> m.has("reply_markup")).skip(1).findFirst().orElse(null);
                Thread.sleep(50);
            }
            assertTrue(again != null, "a second question was sent: " + sent);
            int messageId = 1000 + sent.indexOf(again) + 1;
            String deny = again.path("reply_markup").path("inline_keyboard").get(0).get(2).path("callback_data").asText();
            update(4, 42, "owner", deny);
            awaitSent(42, "Kept it.");
            assertTrue(calls.stream().anyMatch(c -> c.startsWith("editMessageReplyMarkup")
                    && c.contains("\"message_id\":" + messageId)), "typed answer, buttons removed: " + calls);
        }
    }

    @Test
    void messagesInRepliesAndCheckpointsOutStrangersRefused() throws Exception {
        startFakeBotApi();
        startBrain(false, Map.of(
                "channels.telegram.enabled", "true",
                "channels.telegram.base-url", "http://127.0.0.1:" + bot.getAddress().getPort(),
                "channels.telegram.bot-token", "123:abc",
                "channels.telegram.allowed-chats", "42",
                "channels.telegram.poll-timeout", "1s",
                "chat.progress-interval", "100ms"));

        update(1, 42, "owner", "/shell for i in 1 2 3; do echo step$i; sleep 0.6; done; echo hi");
        update(2, 666, "stranger", "hello");
        update(3, 666, "stranger", "hello again");

        awaitSent(42, "Running run_shell on brain (");
        awaitSent(42, "[🔄] 1 line, ");
        awaitSent(42, "[✅ Complete] run_shell (");
        String result = textsTo(42).stream().filter(t -> t.startsWith("[✅ Complete]")).findFirst().orElseThrow();
        assertTrue(result.contains("step3\nhi"), result);
        List<String> owner = textsTo(42);
        assertTrue(owner.indexOf(owner.stream().filter(t -> t.startsWith("Running")).findFirst().orElseThrow())
                < owner.indexOf(result), "the reply comes before the result: " + owner);

        awaitSent(666, "only talks to its owner");
        update(4, 42, "owner", "/workers");
        awaitSent(42, "single-machine mode");
        assertEquals(List.of("Sorry, this assistant only talks to its owner."), textsTo(666), "one refusal only");
    }
}
