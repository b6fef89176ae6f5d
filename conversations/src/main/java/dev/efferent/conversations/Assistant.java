package dev.efferent.conversations;

import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;

/**
 * What answers text that is not a command: the seam where the agent plugs in. Called in the conversation's lane,
 * one message at a time per conversation (a later message of the same conversation waits); it may answer at once
 * or return and answer later, from any thread, through {@link Replies}, which it may keep for as long as it needs.
 */
@FunctionalInterface
public interface Assistant {

    /** The built-in answer: points to the commands. */
    Assistant COMMANDS_ONLY = (message, replies) -> replies.send(new OutgoingMessage.Text(
            "I run commands on your machines for now; free-text requests need an agent, which is not connected yet. "
                    + "Try /shell ls, /read notes.txt or /help."));

    /** Answers {@code message} through {@code replies}, now or later. */
    void onMessage(IncomingMessage message, Replies replies);
}
