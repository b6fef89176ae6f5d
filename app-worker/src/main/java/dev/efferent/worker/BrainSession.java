package dev.efferent.worker;

import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerRegister;
import io.helidon.common.buffers.BufferData;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;

import java.lang.System.Logger.Level;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * One WebSocket connection to a brain: registers, then feeds the brain's messages to the {@link Worker} and
 * sends the worker's. Completes {@link #closed()} when the connection ends, however it ends.
 */
final class BrainSession implements WsListener {
    private static final System.Logger LOG = System.getLogger(BrainSession.class.getName());

    private final URI brain;
    private final Worker worker;
    private final ProtocolCodec codec;
    private final WorkerRegister register;
    private final CompletableFuture<String> closed = new CompletableFuture<>();
    private final StringBuilder partial = new StringBuilder();
    private volatile WsSession session;
    private volatile boolean registered;
    private volatile long lastHeardNanos = System.nanoTime();

    BrainSession(URI brain, Worker worker, ProtocolCodec codec, WorkerRegister register) {
        this.brain = brain;
        this.worker = worker;
        this.codec = codec;
        this.register = register;
    }

    /** Completes with the reason once the connection has ended. */
    CompletableFuture<String> closed() {
        return closed;
    }

    boolean registered() {
        return registered;
    }

    /** Sends a message if the connection is open; false if it is not (the journal keeps results). */
    synchronized boolean send(Message message) {
        WsSession s = session;
        if (s == null || closed.isDone()) {
            return false;
        }
        try {
            s.send(codec.encode(message), true);
            return true;
        } catch (RuntimeException e) {
            // The client does not always report a dead socket; a failed write is how we learn of it.
            closed.complete("connection lost: " + e.getMessage());
            return false;
        }
    }

    synchronized void ping() {
        WsSession s = session;
        if (s != null && !closed.isDone()) {
            try {
                s.ping(BufferData.empty());
            } catch (RuntimeException e) {
                closed.complete("connection lost: " + e.getMessage());
            }
        }
    }

    synchronized void close(int code, String reason) {
        WsSession s = session;
        if (s != null && !closed.isDone()) {
            try {
                s.close(code, reason);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "Closing the brain connection failed: {0}", e.getMessage());
            }
        }
        closed.complete(reason);
    }

    /** How long since the brain last sent anything (a frame or a pong). */
    java.time.Duration silence() {
        return java.time.Duration.ofNanos(System.nanoTime() - lastHeardNanos);
    }

    @Override
    public void onOpen(WsSession session) {
        lastHeardNanos = System.nanoTime();
        this.session = session;
        send(register);
    }

    @Override
    public void onMessage(WsSession session, String text, boolean last) {
        lastHeardNanos = System.nanoTime();
        partial.append(text);
        if (!last) {
            return;
        }
        String frame = partial.toString();
        partial.setLength(0);
        Message message;
        try {
            message = codec.decode(frame);
        } catch (ProtocolException e) {
            LOG.log(Level.WARNING, "Refused a frame from the brain: {0}", e.getMessage());
            send(ErrorMessage.of(e));
            return;
        }
        switch (message) {
            case WorkerAck ack -> {
                registered = true;
                worker.registered(this, brain, ack);
            }
            case TaskDispatch d -> worker.dispatch(d);
            case TaskCancel c -> worker.cancel(c);
            case TaskResultAck a -> worker.acknowledged(a.taskId());
            case ErrorMessage e -> LOG.log(Level.WARNING, "The brain reported {0}: {1}", e.code().wire(), e.message());
            default -> LOG.log(Level.WARNING, "Ignored a {0} frame: brains do not send it", message.type());
        }
    }

    @Override
    public void onPing(WsSession session, BufferData buffer) {
        lastHeardNanos = System.nanoTime();
        session.pong(buffer);
    }

    @Override
    public void onPong(WsSession session, BufferData buffer) {
        lastHeardNanos = System.nanoTime();
    }

    @Override
    public void onClose(WsSession session, int status, String reason) {
        closed.complete("closed by the brain (" + status + (reason == null || reason.isBlank() ? "" : " " + reason) + ")");
    }

    @Override
    public void onError(WsSession session, Throwable t) {
        closed.complete("connection error: " + t.getMessage());
    }
}
