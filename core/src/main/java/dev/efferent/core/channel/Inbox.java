package dev.efferent.core.channel;

/** Where a channel delivers what people write. Thread-safe; returns quickly (replies are sent later). */
@FunctionalInterface
public interface Inbox {

    /** A person wrote something. */
    void receive(IncomingMessage message);
}
