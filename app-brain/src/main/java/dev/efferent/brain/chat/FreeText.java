package dev.efferent.brain.chat;

import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;

import java.util.List;

/**
 * What answers text that is not a command. Today a short helpful reply; the seam where an agent will turn free
 * text into tool calls.
 */
@FunctionalInterface
public interface FreeText {

    /** The built-in answer: points to the commands. */
    FreeText COMMANDS_ONLY = message -> List.of(new OutgoingMessage.Text(
            "I run commands on your machines for now; free-text requests need an agent, which is not connected yet. "
                    + "Try /shell ls, /read notes.txt or /help."));

    /** The replies to {@code message}. */
    List<OutgoingMessage> reply(IncomingMessage message);
}
