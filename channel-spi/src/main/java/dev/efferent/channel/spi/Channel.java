package dev.efferent.channel.spi;

/**
 * A chat service as the assistant sees it: it delivers incoming text to an {@link Inbox} and sends messages to
 * conversations. Created by a {@link ChannelProvider}; started once, closed at shutdown.
 */
public interface Channel extends AutoCloseable {

    /** The channel's name, the same as its provider's; the prefix of its conversations' keys. */
    String name();

    /** Starts receiving (long polling, a socket, …) and delivering messages to {@code inbox}. Must not block. */
    void start(Inbox inbox);

    /**
     * Sends a message to a conversation. Must not block for long; failures are the channel's to log.
     *
     * @param conversation one of this channel's conversations
     * @param message      what to send
     */
    void send(Conversation conversation, OutgoingMessage message);

    /** Stops receiving and releases resources. The default does nothing. */
    @Override
    default void close() {
    }
}
