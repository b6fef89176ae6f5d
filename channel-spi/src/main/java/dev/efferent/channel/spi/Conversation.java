package dev.efferent.channel.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * One chat with the assistant: a channel and the channel's own id for the chat (a Telegram chat id, a console
 * tab). Tasks remember the conversation that started them ({@link #key()}), and their checkpoints go back to it.
 *
 * @param channel the channel's name, e.g. {@code "telegram"}
 * @param id      the chat's id within the channel; no colon
 */
public record Conversation(String channel, String id) {
    public Conversation {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(id, "id");
        if (channel.isBlank() || channel.contains(":")) {
            throw new IllegalArgumentException("channel name '" + channel + "' must be non-empty, without ':'");
        }
        if (id.isBlank()) {
            throw new IllegalArgumentException("conversation id must not be blank");
        }
    }

    /** {@code channel:id}, the form stored as the session of the tasks it starts. */
    public String key() {
        return channel + ":" + id;
    }

    /** The conversation a {@link #key()} names, if it is one. */
    public static Optional<Conversation> fromKey(String key) {
        int colon = key.indexOf(':');
        if (colon <= 0 || colon == key.length() - 1) {
            return Optional.empty();
        }
        return Optional.of(new Conversation(key.substring(0, colon), key.substring(colon + 1)));
    }

    @Override
    public String toString() {
        return key();
    }
}
