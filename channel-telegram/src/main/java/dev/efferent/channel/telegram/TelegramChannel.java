package dev.efferent.channel.telegram;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Telegram through the Bot API: a thread long-polls {@code getUpdates} and hands each text message from an
 * allowed chat to the inbox; replies go out with {@code sendMessage}. A message from any other chat gets one
 * refusal, and the chat id is logged so the owner can allow it.
 */
final class TelegramChannel implements Channel {
    private static final System.Logger LOG = System.getLogger(TelegramChannel.class.getName());
    static final String NAME = "telegram";
    static final String REFUSAL = "Sorry, this assistant only talks to its owner.";
    /** Telegram refuses longer messages. */
    private static final int MAX_TEXT = 4000;

    private final TelegramSettings settings;
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final Set<Long> refused = ConcurrentHashMap.newKeySet();
    private volatile boolean running;
    private Thread poller;

    /** The message each prompt's buttons are on, to take them away when it is answered another way. */
    private final Map<String, long[]> keyboards = new ConcurrentHashMap<>();

    TelegramChannel(TelegramSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public synchronized void start(Inbox inbox) {
        running = true;
        poller = Thread.ofPlatform().daemon().name("efferent-telegram").start(() -> poll(inbox));
        LOG.log(Level.INFO, "Telegram channel polling {0} for {1} allowed chats", settings.baseUrl(),
                settings.allowedChats().size());
    }

    private void poll(Inbox inbox) {
        long offset = 0;
        long backoffMs = 1000;
        while (running) {
            try {
                URI uri = URI.create(settings.method("getUpdates") + "?timeout=" + settings.pollTimeout().toSeconds()
                        + "&offset=" + offset);
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
                        .timeout(settings.pollTimeout().plusSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
                JsonNode body = json.readTree(response.body());
                if (response.statusCode() != 200 || !body.path("ok").asBoolean()) {
                    throw new IOException("getUpdates answered " + response.statusCode() + ": "
                            + body.path("description").asText(response.body()));
                }
                for (JsonNode update : body.path("result")) {
                    offset = Math.max(offset, update.path("update_id").asLong() + 1);
                    if (update.has("callback_query")) {
                        answered(inbox, update.path("callback_query"));
                    } else {
                        handle(inbox, update.path("message"));
                    }
                }
                backoffMs = 1000;
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (!running) {
                    return;
                }
                LOG.log(Level.WARNING, "Telegram getUpdates failed ({0}); retrying in {1} ms", e.getMessage(),
                        String.valueOf(backoffMs));
                try {
                    Thread.sleep(backoffMs);
                } catch (InterruptedException ie) {
                    return;
                }
                backoffMs = Math.min(backoffMs * 2, 30_000);
            }
        }
    }

    private void handle(Inbox inbox, JsonNode message) {
        if (!message.path("text").isTextual() || !message.path("chat").has("id")) {
            return;
        }
        long chat = message.path("chat").path("id").asLong();
        String sender = message.path("from").path("username").asText(message.path("from").path("first_name").asText(""));
        if (!settings.allowedChats().contains(chat)) {
            if (refused.add(chat)) {
                LOG.log(Level.WARNING, "Refused a Telegram message from chat {0} (@{1}); add {0} to "
                        + "channels.telegram.allowed-chats to let it in", String.valueOf(chat), sender);
                sendText(chat, REFUSAL);
            }
            return;
        }
        inbox.receive(new IncomingMessage(new Conversation(NAME, Long.toString(chat)), sender,
                message.path("text").asText()));
    }

    /**
     * A button of a prompt was pressed: its command comes in as if typed, the button's spinner stops, and the
     * buttons go, so that a question is answered once.
     */
    private void answered(Inbox inbox, JsonNode query) {
        JsonNode message = query.path("message");
        long chat = message.path("chat").path("id").asLong();
        String data = query.path("data").asText("");
        call("answerCallbackQuery", json.createObjectNode().put("callback_query_id", query.path("id").asText()));
        if (!settings.allowedChats().contains(chat) || !data.startsWith("/")) {
            LOG.log(Level.WARNING, "Ignored a Telegram button from chat {0}: not an allowed chat, or not a command",
                    String.valueOf(chat));
            return;
        }
        removeKeyboard(chat, message.path("message_id").asLong());
        keyboards.values().removeIf(k -> k[0] == chat && k[1] == message.path("message_id").asLong());
        String sender = query.path("from").path("username").asText(query.path("from").path("first_name").asText(""));
        inbox.receive(new IncomingMessage(new Conversation(NAME, Long.toString(chat)), sender, data));
    }

    @Override
    public void send(Conversation conversation, OutgoingMessage message) {
        if (message instanceof OutgoingMessage.Streamed s && !s.done()) {
            // This channel does not edit messages: a streamed reply goes out whole, once it is done.
            return;
        }
        long chat = Long.parseLong(conversation.id());
        if (message instanceof OutgoingMessage.Prompt p && buttons(p)) {
            // A question with buttons (an inline keyboard); each button sends its command back.
            ObjectNode body = json.createObjectNode().put("chat_id", chat).put("text", cut(p.question()));
            var row = body.putObject("reply_markup").putArray("inline_keyboard").addArray();
            p.choices().forEach(c -> row.addObject().put("text", c.label()).put("callback_data", c.command()));
            call("sendMessage", body).map(r -> r.path("result").path("message_id"))
                    .filter(JsonNode::isNumber).ifPresent(id -> keyboards.put(p.promptId(), new long[]{chat, id.asLong()}));
            return;
        }
        if (message instanceof OutgoingMessage.PromptClosed c) {
            long[] shown = keyboards.remove(c.promptId());
            if (shown != null) {
                removeKeyboard(shown[0], shown[1]);
            }
            return;
        }
        String text = message instanceof OutgoingMessage.Image
                ? message.text() + " (an image: open the web console to see it)" : message.text();
        for (int start = 0; start < text.length(); start += MAX_TEXT) {
            sendText(chat, text.substring(start, Math.min(text.length(), start + MAX_TEXT)));
        }
    }

    private void removeKeyboard(long chat, long messageId) {
        ObjectNode edit = json.createObjectNode().put("chat_id", chat).put("message_id", messageId);
        edit.putObject("reply_markup").putArray("inline_keyboard");
        call("editMessageReplyMarkup", edit);
    }

    /** Telegram carries at most 64 bytes of data a button. */
    private static boolean buttons(OutgoingMessage.Prompt p) {
        return p.choices().stream().allMatch(c -> c.command().getBytes(StandardCharsets.UTF_8).length
                <= 64);
    }

    private static String cut(String text) {
        return text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT - 1) + "…";
    }

    private void sendText(long chat, String text) {
        call("sendMessage", json.createObjectNode().put("chat_id", chat).put("text", text));
    }

    /**
     * Calls a Bot API method; its answer, if it gave one. A failure is logged (a chat message lost), never thrown
     * into the conversation.
     */
    private Optional<JsonNode> call(String method, ObjectNode body) {
        long chat = body.path("chat_id").asLong();
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(settings.method(method))
                    .timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                LOG.log(Level.WARNING, "Telegram {0} to chat {1} answered {2}: {3}", method, String.valueOf(chat),
                        response.statusCode(), response.body());
                return Optional.empty();
            }
            return Optional.of(json.readTree(response.body()));
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Telegram {0} to chat {1} failed: {2}", method, String.valueOf(chat), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Optional.empty();
    }

    @Override
    public synchronized void close() {
        running = false;
        if (poller != null) {
            poller.interrupt();
        }
    }
}
