package dev.efferent.assistant;

import dev.efferent.channel.spi.OutgoingMessage;

/**
 * The way back to one conversation, for an {@link Assistant}: usable from any thread, at any later time. What is
 * sent goes out in the order it was sent, in the conversation's lane, after what came before.
 */
public interface Replies {
    /** Sends a message. */
    void send(OutgoingMessage message);

    /** Appends {@code text} to the reply being streamed, starting one if none is. */
    void stream(String text);

    /** Ends the streamed reply, if one is being written. */
    void finish();
}
