package dev.efferent.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.model.spi.ModelMessage;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * What each conversation has said to the model so far, since its last {@code /new}: one record log per
 * conversation, a message per entry, the finished turns only (a parked turn keeps its own until it ends).
 */
final class Contexts {
    private static final System.Logger LOG = System.getLogger(Contexts.class.getName());
    /** Messages kept per conversation, older ones forgotten (they would be trimmed from the context anyway). */
    private static final int KEEP = 400;
    private static final String NEW = "{\"role\":\"new\"}";

    /** Each conversation's log of messages as JSON text, and the mark of each /new: text, to find that mark. */
    private final Space<String> records;
    private final Messages messages;
    private final ObjectMapper json;

    Contexts(Store store, Messages messages, ObjectMapper json) {
        this.records = store.claim(new Namespace<>("agent.contexts", Codec.text()), Agent.OWNER);
        this.messages = messages;
        this.json = json;
    }

    /** The conversation's messages since its last {@code /new}, starting at a person's message. */
    List<ModelMessage> load(String conversation) {
        List<String> log = records.tail(conversation, KEEP);
        // Only what follows the last /new is read: the messages before it are never sent again.
        int from = log.lastIndexOf(NEW) + 1;
        List<ModelMessage> out = new ArrayList<>();
        for (String data : log.subList(from, log.size())) {
            try {
                out.add(messages.fromJson(json.readTree(data)));
            } catch (JsonProcessingException | IllegalArgumentException e) {
                LOG.log(Level.WARNING, "Left out a message of " + conversation + " that cannot be read: " + e.getMessage());
            }
        }
        // A log cut at KEEP may begin inside a turn; a context begins with what the person said.
        while (!out.isEmpty() && !(out.getFirst() instanceof ModelMessage.User)) {
            out.removeFirst();
        }
        return out;
    }

    /** Adds a finished turn's messages. */
    void add(String conversation, List<ModelMessage> turn) {
        for (ModelMessage m : turn) {
            records.append(conversation, messages.toJson(m).toString(), KEEP);
        }
    }

    /** Starts afresh: what was said before is no longer sent. */
    void reset(String conversation) {
        records.append(conversation, NEW, KEEP);
    }

    /**
     * The oldest turns of {@code context} dropped until it and {@code turn} fit in {@code budget} tokens; the
     * current turn is always kept whole.
     */
    static List<ModelMessage> fit(List<ModelMessage> context, List<ModelMessage> turn, int budget) {
        int used = turn.stream().mapToInt(Messages::tokens).sum();
        List<ModelMessage> kept = new ArrayList<>(context);
        int total = used + kept.stream().mapToInt(Messages::tokens).sum();
        while (total > budget && !kept.isEmpty()) {
            // Drop one whole turn: the person's message and everything up to the next one.
            do {
                total -= Messages.tokens(kept.removeFirst());
            } while (!kept.isEmpty() && !(kept.getFirst() instanceof ModelMessage.User));
        }
        kept.addAll(turn);
        return kept;
    }
}
