package dev.efferent.channel.spi;

/** Where a channel delivers what people write. Thread-safe; returns quickly (replies are sent later). */
@FunctionalInterface
public interface Inbox {

    /** A person wrote something. */
    void receive(IncomingMessage message);
}
