package dev.efferent.router;

import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolException;

/** What a transport feeds with one worker connection's frames, from {@link Router#connect(WorkerLink)}. */
public interface WorkerConnection {

    /**
     * A text frame arrived. It is decoded strictly; a refused frame is answered with an {@code error} frame,
     * and a peer that keeps sending refused frames is disconnected.
     */
    void receive(String frame);

    /**
     * The transport refused a frame itself (a binary frame, a message over the size limit): the peer gets an
     * {@code error} frame, and it counts towards disconnecting an abusive peer.
     */
    void refuse(ProtocolException refusal);

    /** A decoded message arrived (for transports that do not use JSON, like the in-process worker). */
    void receive(Message message);

    /** The connection is gone; the worker's unfinished tasks are failed or requeued. */
    void closed(String why);
}
