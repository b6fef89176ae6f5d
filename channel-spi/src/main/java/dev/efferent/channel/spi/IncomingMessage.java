package dev.efferent.channel.spi;

import java.util.Objects;

/**
 * Text a person sent in a conversation.
 *
 * @param conversation where it was sent
 * @param sender       who sent it, for logs (a user name), may be empty
 * @param text         what they wrote
 */
public record IncomingMessage(Conversation conversation, String sender, String text) {
    public IncomingMessage {
        Objects.requireNonNull(conversation, "conversation");
        Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(text, "text");
    }
}
