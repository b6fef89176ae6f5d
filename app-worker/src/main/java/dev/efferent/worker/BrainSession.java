package dev.efferent.worker;

import dev.efferent.core.tools.DurationText;
import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerRegister;
import io.helidon.common.buffers.BufferData;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.SocketOptions;
import io.helidon.common.tls.Tls;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webclient.websocket.WsClient;
import io.helidon.webclient.websocket.WsClientConfig;
import io.helidon.webclient.websocket.WsClientException;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;

import java.lang.System.Logger.Level;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One WebSocket connection to a brain: registers, then feeds the brain's messages to the {@link Worker} and
 * sends the worker's. Completes {@link #closed()} when the connection ends, however it ends: a close frame, an
 * error, a socket that ends without either (the client library reports neither an end of stream nor a read
 * error, but its reader, a thread per connection, ends: {@link #watch} looks), a failed write, or silence.
 * Every write goes through this object's lock: the client's connection shares one send buffer between writers.
 */
final class BrainSession implements WsListener {
    private static final System.Logger LOG = System.getLogger(BrainSession.class.getName());

    private final URI brain;
    private final Worker worker;
    private final ProtocolCodec codec;
    private final WorkerRegister register;
    private final CompletableFuture<String> closed = new CompletableFuture<>();
    private final CompletableFuture<WorkerAck> acked = new CompletableFuture<>();
    private final StringBuilder partial = new StringBuilder();
    /** Skipping the rest of a message over the limit. Only the reader thread touches it. */
    private boolean skipping;
    /** The brain's frame limit from its {@code worker:ack}; 0 until then, or if it did not say. */
    private volatile int brainLimit;
    private volatile WsSession session;
    private volatile Thread reader;
    private volatile long lastHeardNanos = System.nanoTime();
    private volatile long lastPingNanos = System.nanoTime();

    BrainSession(URI brain, Worker worker, ProtocolCodec codec, WorkerRegister register) {
        this.brain = brain;
        this.worker = worker;
        this.codec = codec;
        this.register = register;
    }

    /**
     * Opens the WebSocket on a thread of its own, so that the caller's wait for the ack bounds the upgrade too.
     * A failure completes {@link #closed()} with a phrase naming the brain.
     */
    void open(Credential credential, Duration connectTimeout, Duration readTimeout) {
        String secret = credential.bearer();
        WsClient client = client(brain, secret, connectTimeout, readTimeout);
        Thread.ofVirtual().name("efferent-connect").start(() -> {
            try {
                client.connect(endpoint(brain), this);
            } catch (WsClientException e) {
                String message = e.getMessage() == null ? e.toString() : e.getMessage();
                switch (upgradeStatus(secret)) {
                    case 401 -> {
                        LOG.log(Level.ERROR, credential.refusal(brain));
                        closed.complete("the brain at " + brain + " refused the worker " + (credential.paired() ? "token" : "secret"));
                    }
                    case 404 -> {
                        LOG.log(Level.ERROR, "The brain at {0} takes no workers (404): it runs in single-machine mode; "
                                + "start it with --hands (hands.enabled: true)", brain);
                        closed.complete(brain + " takes no workers (hands are not enabled there)");
                    }
                    case 426 -> closed.complete("the WebSocket upgrade at " + brain + " failed though the credential is "
                            + "right: something in between (a proxy) does not pass WebSocket upgrades on (" + message + ")");
                    default -> closed.complete("the WebSocket upgrade at " + brain + " failed: " + message);
                }
            } catch (RuntimeException e) {
                closed.complete("cannot connect to " + brain + ": " + rootMessage(e));
            }
        });
    }

    private static WsClient client(URI brain, String bearer, Duration connectTimeout, Duration readTimeout) {
        WsClientConfig.Builder builder = WsClient.builder()
                .baseUri(brain.toString())
                .addHeader(HeaderValues.create(HeaderNames.AUTHORIZATION, "Bearer " + bearer))
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(connectTimeout)
                        .tcpNoDelay(true)
                        .readTimeout(readTimeout)
                        .build());
        String scheme = brain.getScheme() == null ? "" : brain.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("ws") || scheme.equals("http")) {
            // No trust store is read for a plain link (wss and https keep TLS): a third of the client's set-up time.
            builder.tls(Tls.builder().enabled(false).build());
        }
        return builder.build();
    }

    /** Builds a client to {@code brain} and drops it: what the first session would wait for, done ahead. */
    static void preload(URI brain) {
        client(brain, "preload", Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    /**
     * The status the brain answers a plain request to its worker endpoint with, or 0 if it cannot be had: the
     * WebSocket client reports a refused upgrade only as text, and what to tell the user depends on the status.
     */
    private int upgradeStatus(String secret) {
        URI http = URI.create(brain.toString().replaceFirst("^ws", "http")).resolve(endpoint(brain));
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()) {
            return client.send(HttpRequest.newBuilder(http).timeout(Duration.ofSeconds(3))
                    .header("Authorization", "Bearer " + secret).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException | IllegalArgumentException e) {
            LOG.log(Level.DEBUG, "Could not ask {0} why it refused the upgrade: {1}", brain, e.toString());
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private static String endpoint(URI brain) {
        String path = brain.getPath() == null ? "" : brain.getPath();
        return path.endsWith("/ws/worker") ? path : path.replaceAll("/+$", "") + "/ws/worker";
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    /** Completes with the reason once the connection has ended. */
    CompletableFuture<String> closed() {
        return closed;
    }

    /** What this connection registers (or registered) with. */
    WorkerRegister registration() {
        return register;
    }

    /** Completes when the brain has answered {@code worker:register}. */
    CompletableFuture<WorkerAck> acked() {
        return acked;
    }

    boolean registered() {
        return acked.isDone();
    }

    /** Whether the WebSocket was opened (the upgrade succeeded). */
    boolean opened() {
        return session != null;
    }

    /**
     * Sends a message if the connection is open; false if it is not (the journal keeps results). A result too
     * large for this worker's or the brain's frame limit goes as a failure that says so: sent as it is, the brain
     * would close the link, and the journal would offer it again after every reconnect.
     */
    synchronized boolean send(Message message) {
        WsSession s = session;
        if (s == null || closed.isDone()) {
            return false;
        }
        String frame;
        try {
            frame = fitting(codec.encode(message), message);
        } catch (ProtocolException e) {
            if (!(message instanceof TaskResult r) || e.code() != ErrorCode.FRAME_TOO_LARGE) {
                LOG.log(Level.WARNING, "Could not send {0}: {1}", message.type(), e.getMessage());
                return false;
            }
            frame = tooLarge(r, e.getMessage());
        }
        try {
            s.send(frame, true);
            return true;
        } catch (RuntimeException e) {
            lost("connection lost: " + e.getMessage());
            return false;
        }
    }

    /** The frame, or, for a result over the brain's limit, the failure that replaces it. */
    private String fitting(String frame, Message message) {
        int limit = brainLimit;
        if (limit <= 0 || frame.length() <= limit / 3 || !(message instanceof TaskResult r)) {
            return frame;
        }
        int bytes = frame.getBytes(StandardCharsets.UTF_8).length;
        return bytes <= limit ? frame : tooLarge(r, "a task:result frame of " + bytes + " bytes exceeds the brain's "
                + "maximum of " + limit + " bytes");
    }

    private String tooLarge(TaskResult r, String why) {
        LOG.log(Level.WARNING, "The result of task {0} is too large to send and is reported as failed: {1}",
                r.taskId(), why);
        return codec.encode(TaskResult.ended(r.taskId(), ResultStatus.FAILED, "the result is too large to send: "
                + why + " (protocol.max-frame-bytes)", r.durationMs()));
    }

    /**
     * Called often (every 100 ms or so): ends the session if the client's reader thread has ended, pings the
     * brain when it has been quiet for {@code pingAfter}, and declares the link dead when nothing at all (a
     * frame, a ping, a pong) came for {@code deadAfter}. Never
     * writes on the caller's thread: a write to a half-open link can block, and this check must still run.
     */
    void watch(Duration pingAfter, Duration deadAfter) {
        if (session == null || closed.isDone()) {
            return;
        }
        Thread r = reader;
        if (r != null && !r.isAlive()) {
            lost("connection lost: the socket ended without a WebSocket close");
            return;
        }
        long now = System.nanoTime();
        long silent = now - lastHeardNanos;
        if (silent >= deadAfter.toNanos()) {
            lost("no frame, ping or pong from " + brain + " for " + DurationText.of(Duration.ofMillis(
                    TimeUnit.NANOSECONDS.toMillis(silent))) + " (worker.brain-timeout is "
                    + DurationText.of(deadAfter) + ")");
        } else if (silent >= pingAfter.toNanos() && now - lastPingNanos >= pingAfter.toNanos()) {
            lastPingNanos = now;
            Thread.ofVirtual().name("efferent-brain-ping").start(this::ping);
        }
    }

    private synchronized void ping() {
        WsSession s = session;
        if (s != null && !closed.isDone()) {
            try {
                s.ping(BufferData.empty());
            } catch (RuntimeException e) {
                lost("connection lost: " + e.getMessage());
            }
        }
    }

    /**
     * Ends the connection politely (a close frame, then the socket), for shutdown or when it is given up.
     *
     * @return completes once the socket is closed
     */
    CompletableFuture<Void> close(int code, String reason) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        WsSession s = session;
        if (!closed.complete(reason) || s == null) {
            done.complete(null);
            return done;
        }
        Thread.ofVirtual().name("efferent-brain-close").start(() -> {
            synchronized (this) {
                try {
                    s.close(code, reason);
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, "Closing the connection to {0} failed: {1}", brain, e.getMessage());
                }
            }
            abort(s);
            done.complete(null);
        });
        return done;
    }

    /** The link is dead: the worker moves on at once, and the socket is closed without a word to the brain. */
    private void lost(String reason) {
        if (closed.complete(reason)) {
            WsSession s = session;
            if (s != null) {
                Thread.ofVirtual().name("efferent-brain-abort").start(() -> abort(s));
            }
        }
    }

    private void abort(WsSession s) {
        try {
            // Closing the socket wakes the reader, and a writer blocked on a full send buffer, at once.
            if (s.socketContext() instanceof HelidonSocket socket) {
                socket.close();
            } else {
                s.terminate();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "Closing the socket to {0} failed: {1}", brain, e.getMessage());
        }
    }

    @Override
    public void onOpen(WsSession session) {
        lastHeardNanos = System.nanoTime();
        this.reader = Thread.currentThread();
        this.session = session;
        if (closed.isDone()) {
            // Given up while the upgrade was still on its way (register timeout, shutdown).
            abort(session);
            return;
        }
        send(register);
    }

    @Override
    public void onMessage(WsSession session, String text, boolean last) {
        lastHeardNanos = System.nanoTime();
        if (skipping || partial.length() + (long) text.length() > codec.maxFrameBytes()) {
            // Over this worker's limit: keep none of it, say so once, and skip the rest of the message.
            if (!skipping) {
                LOG.log(Level.WARNING, "The brain sent a message of more than {0} bytes; skipped. Give brain and "
                        + "workers the same protocol.max-frame-bytes", codec.maxFrameBytes());
                send(new ErrorMessage(ErrorCode.FRAME_TOO_LARGE, "a message of more than " + codec.maxFrameBytes()
                        + " bytes exceeds this worker's maximum of " + codec.maxFrameBytes() + " bytes"));
            }
            partial.setLength(0);
            skipping = !last;
            return;
        }
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
                brainLimit = ack.maxFrameBytes();
                if (acked.complete(ack)) {
                    worker.registered(this, brain, ack);
                }
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
        synchronized (this) {
            try {
                session.pong(buffer);
            } catch (RuntimeException e) {
                lost("connection lost: " + e.getMessage());
            }
        }
    }

    @Override
    public void onPong(WsSession session, BufferData buffer) {
        lastHeardNanos = System.nanoTime();
    }

    @Override
    public void onClose(WsSession session, int status, String reason) {
        // The client finishes the closing handshake and ends the reader itself.
        closed.complete("closed by the brain (" + status
                + (reason == null || reason.isBlank() ? "" : " " + reason) + ")");
    }

    @Override
    public void onError(WsSession session, Throwable t) {
        lost("connection error: " + t.getMessage());
    }
}
