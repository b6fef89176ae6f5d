package dev.efferent.router;

import dev.efferent.protocol.Message;

/** What a transport feeds with one worker connection's frames, from {@link Router#connect(WorkerLink)}. */
public interface WorkerConnection {

    /**
     * A text frame arrived. It is decoded strictly; a refused frame is answered with an {@code error} frame,
     * and a peer that keeps sending refused frames is disconnected.
     */
    void receive(String frame);

    /** A decoded message arrived (for transports that do not use JSON, like the in-process worker). */
    void receive(Message message);

    /** The connection is gone; the worker's unfinished tasks are failed or requeued. */
    void closed(String why);
}
