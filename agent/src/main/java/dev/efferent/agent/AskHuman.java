package dev.efferent.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.assistant.Replies;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.tools.DurationText;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.model.spi.ToolCall;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code ask_human}: the model asks the person for a hand (a login, a captcha, a decision only they can make), and
 * its turn waits for {@code /done [note]} or a reply in the conversation, up to {@code agent.human-timeout}; then it
 * goes on, told what happened.
 */
final class AskHuman {
    static final String NAME = "ask_human";
    static final ModelTool TOOL = new ModelTool(NAME, "Ask the user for help when you are blocked: a login, a "
            + "captcha, a decision only they can make. Say what they should do. Your turn waits for their answer.",
            "{\"type\":\"object\",\"properties\":{\"reason\":{\"type\":\"string\",\"description\":\"what the user "
                    + "should do, and why\"}},\"required\":[\"reason\"]}");

    private final Duration timeout;
    private final ObjectMapper json;
    private final Map<String, CompletableFuture<String>> waiting = new ConcurrentHashMap<>();

    AskHuman(Duration timeout, ObjectMapper json) {
        this.timeout = timeout;
        this.json = json;
    }

    /** Asks, waits, and says what happened, for the model. Interrupted: the turn was stopped. */
    String ask(Conversation conversation, Replies replies, ToolCall call, AssistantHost host) {
        String reason;
        try {
            reason = json.readTree(call.arguments()).path("reason").asText("").strip();
        } catch (JsonProcessingException e) {
            reason = "";
        }
        if (reason.isEmpty()) {
            return "Error: ask_human needs a reason: what the user should do.";
        }
        CompletableFuture<String> answer = new CompletableFuture<>();
        waiting.put(conversation.key(), answer);
        try {
            replies.send(new OutgoingMessage.Prompt("human-" + call.id(), "The assistant needs you: " + reason
                    + "\nSend /done (with a note if you like) when you are done, or just answer here.",
                    List.of(new OutgoingMessage.Prompt.Choice("Done", "/done"))));
            // Wherever else the person may be looking: the answer still goes to the conversation that asked.
            host.notifyElsewhere(conversation, new OutgoingMessage.Text("The assistant needs you in "
                    + conversation.key() + ": " + reason));
            try {
                String said = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                return said.isEmpty() ? "The user says it is done." : "The user answered: " + said;
            } catch (TimeoutException e) {
                return "No response in " + DurationText.words(timeout) + ". Continuing autonomously.";
            } catch (InterruptedException e) {
                throw new CancellationException("the turn was stopped");
            } catch (ExecutionException e) {
                throw new IllegalStateException("waiting for the user failed", e.getCause());
            }
        } finally {
            waiting.remove(conversation.key(), answer);
        }
    }

    /** {@code /done [note]} in conversation {@code key}: what to tell the person. */
    String done(String key, String note) {
        CompletableFuture<String> answer = waiting.get(key);
        if (answer == null || !answer.complete(note)) {
            return "Nothing is waiting for you here.";
        }
        return "Thanks; the assistant goes on.";
    }

    /** Free text while the assistant waits for the person: it is the answer. Whether it was taken. */
    boolean reply(String key, String text) {
        CompletableFuture<String> answer = waiting.get(key);
        return answer != null && answer.complete(text.strip());
    }
}
