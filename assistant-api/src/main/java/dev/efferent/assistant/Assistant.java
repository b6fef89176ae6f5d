package dev.efferent.assistant;

import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;

import java.util.List;
import java.util.Optional;

/**
 * What answers text that is not a command: the seam where the agent plugs in. Called in the conversation's turn
 * lane, one message at a time per conversation (a later message of the same conversation waits); it may answer at
 * once or return and answer later, from any thread, through {@link Replies}, which it may keep as long as it needs.
 */
@FunctionalInterface
public interface Assistant {
    /** The built-in answer when no model is configured: how to configure one; commands keep working. */
    Assistant COMMANDS_ONLY = (message, replies) -> replies.send(new OutgoingMessage.Text("""
            I can only run commands until a language model is configured. Start the brain with one, e.g.
              Ollama on this machine:  EFFERENT_MODEL_NAME=llama3.2 EFFERENT_MODEL_BASE__URL=http://127.0.0.1:11434/v1 bin/efferent brain
              OpenAI:                  EFFERENT_MODEL_NAME=gpt-4o-mini OPENAI_API_KEY=sk-… bin/efferent brain
            Meanwhile try /shell ls, /read notes.txt or /help."""));

    /** Answers {@code message} through {@code replies}, now or later. */
    void onMessage(IncomingMessage message, Replies replies);

    /**
     * Called once, before the first message: how to reach a conversation later, e.g. to resume a turn that waited
     * for a task.
     */
    default void start(AssistantHost host) {
    }

    /**
     * Answers a command this assistant owns (e.g. {@code /stop}); empty for one it does not know. Called in the
     * conversation's lane, apart from its turns, so it can stop a turn that is running.
     */
    default Optional<List<OutgoingMessage>> command(IncomingMessage message) {
        return Optional.empty();
    }

    /**
     * Offers text that is not a command to a turn that waits for the person (e.g. the agent asked for a hand):
     * true when it took it, so that it starts no turn of its own. Called in the conversation's lane.
     */
    default boolean interject(IncomingMessage message) {
        return false;
    }

    /** Lines for {@code /help}, one per command this assistant owns, e.g. {@code /stop — end the running turn}. */
    default List<String> help() {
        return List.of();
    }
}
