package dev.efferent.router;

import dev.efferent.protocol.Message;

/**
 * The router's view of one worker connection: a way to send it messages and to close it. The transport
 * (a WebSocket, an in-process adapter, a test fake) implements it; the router never sees a socket.
 */
public interface WorkerLink {

    /** Sends a message. Must not block for long; failures are the transport's to log and act on. */
    void send(Message message);

    /**
     * Closes the connection.
     *
     * @param code   a WebSocket close code, e.g. 1008
     * @param reason why, for the peer's logs
     */
    void close(int code, String reason);

    /** The peer for logs, e.g. {@code 127.0.0.1:52344}. */
    String describe();
}
