package dev.efferent.router;

import dev.efferent.protocol.Message;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

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

    /**
     * Asks the peer whether it is still there (a WebSocket ping): the stage completes when it answers, and
     * completes exceptionally when the ping cannot be sent. The router asks before it lets a second connection
     * take over a live worker's id. A transport that cannot tell answers at once: the peer counts as alive.
     */
    default CompletionStage<Void> ping() {
        return CompletableFuture.completedFuture(null);
    }
}
