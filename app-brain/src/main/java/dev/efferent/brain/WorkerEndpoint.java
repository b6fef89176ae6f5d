package dev.efferent.brain;

import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.queue.QueueException;
import dev.efferent.router.PairedIdentity;
import dev.efferent.router.Router;
import dev.efferent.router.WorkerConnection;
import dev.efferent.router.WorkerLink;
import io.helidon.common.buffers.BufferData;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;
import io.helidon.websocket.WsUpgradeException;

import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One worker's WebSocket at {@code /ws/worker}: the secret or a paired machine's token is checked on the upgrade (a refused upgrade falls
 * through to the HTTP route, which answers 401), then frames go to the router and messages come back.
 */
final class WorkerEndpoint implements WsListener {
    private static final System.Logger LOG = System.getLogger(WorkerEndpoint.class.getName());
    /** A refused message whose fragments go on past this many times the limit closes the link (1009). */
    private static final int MAX_SKIPPED = 4;

    private final Router router;
    private final WorkerCredentials credentials;
    /** Set on the upgrade: who the credential says it is, if it is a paired machine's token. */
    private volatile Optional<PairedIdentity> paired = Optional.empty();
    private final ProtocolCodec codec;
    private final StringBuilder partial = new StringBuilder();
    /** Characters of the message in fragments so far. */
    private long partialChars;
    /** The message in fragments was refused: its remaining fragments are dropped. */
    private boolean skipping;
    /** The link is being closed for endless fragments: nothing more is read. */
    private boolean closing;
    private volatile WorkerConnection connection;
    private volatile SessionLink link;
    private final RequestGuard guard;

    WorkerEndpoint(Router router, WorkerCredentials credentials, ProtocolCodec codec, RequestGuard guard) {
        this.guard = guard;
        this.router = router;
        this.credentials = credentials;
        this.codec = codec;
    }

    @Override
    public Optional<Headers> onHttpUpgrade(HttpPrologue prologue, Headers headers) throws WsUpgradeException {
        Optional<String> refusal = guard.refusal(prologue, headers);
        if (refusal.isPresent()) {
            throw new WsUpgradeException(refusal.get());
        }
        Optional<WorkerCredentials.Admitted> admitted;
        try {
            admitted = credentials.check(headers);
        } catch (QueueException e) {
            // The HTTP route it falls through to answers 503 with the reason.
            throw new WsUpgradeException("the worker's token cannot be checked now: " + e.getMessage());
        }
        if (admitted.isEmpty()) {
            // Logged by the HTTP route it falls through to, which knows the peer.
            throw new WsUpgradeException("missing or wrong worker secret or token");
        }
        paired = admitted.get().paired();
        return Optional.empty();
    }

    @Override
    public void onOpen(WsSession session) {
        link = new SessionLink(session, codec, Peers.of(session));
        connection = paired.map(identity -> router.connect(link, identity)).orElseGet(() -> router.connect(link));
    }

    @Override
    public void onMessage(WsSession session, String text, boolean last) {
        if (closing) {
            return;
        }
        if (!skipping && last && partial.isEmpty()) {
            connection.receive(text);
            return;
        }
        // A message in fragments: refused as soon as it passes the limit, not when it ends; the rest is skipped.
        partialChars += text.length();
        int max = codec.maxFrameBytes();
        if (!skipping && partialChars > max) {
            skipping = true;
            partial.setLength(0);
            connection.refuse(new ProtocolException(ErrorCode.FRAME_TOO_LARGE, "a message in fragments of "
                    + partialChars + " characters so far (at least as many bytes) exceeds the maximum of " + max
                    + " bytes; the rest of it is skipped"));
        } else if (!skipping) {
            partial.append(text);
        } else if (partialChars > (long) MAX_SKIPPED * max) {
            // Fragments without end: reading them costs the brain for nothing. Through the link, whose writes are
            // serialised, so the close neither overtakes the error frame nor cuts into another frame.
            closing = true;
            link.close(1009, "message too long");
            return;
        }
        if (last) {
            if (!skipping) {
                connection.receive(partial.toString());
            }
            partial.setLength(0);
            partialChars = 0;
            skipping = false;
        }
    }

    @Override
    public void onMessage(WsSession session, BufferData buffer, boolean last) {
        if (last) {
            connection.refuse(new ProtocolException(ErrorCode.INVALID_JSON,
                    "binary frames are not used; send each message as a JSON text frame"));
        }
    }

    @Override
    public void onPing(WsSession session, BufferData buffer) {
        SessionLink l = link;
        if (l == null) {
            session.pong(buffer);
        } else {
            // Under the link's lock: the connection has one send buffer, and the router may be sending right now.
            l.pong(buffer);
        }
    }

    @Override
    public void onPong(WsSession session, BufferData buffer) {
        SessionLink l = link;
        if (l != null) {
            l.answered();
        }
    }

    @Override
    public void onClose(WsSession session, int status, String reason) {
        SessionLink l = link;
        if (l != null) {
            l.ended();
        }
        WorkerConnection c = connection;
        if (c != null) {
            c.closed("socket closed (" + status + (reason == null || reason.isBlank() ? "" : " " + reason) + ")");
        }
    }

    @Override
    public void onError(WsSession session, Throwable t) {
        SessionLink l = link;
        if (l != null) {
            l.ended();
        }
        WorkerConnection c = connection;
        if (c != null) {
            c.closed("connection error: " + t.getMessage());
        }
    }


    /** The router's handle on this socket. Sends are serialised: the router and the transport both send. */
    /**
     * The router's handle on this socket. Frames go out through an outbox drained by a virtual thread of the
     * link's own, so a worker that stops reading (its TCP window full) blocks that thread and never the router,
     * which serves every other worker; one whose outbox keeps growing is disconnected. Writes to the socket, from
     * the outbox, pings and pongs, take one lock: the connection has one send buffer. A lock, not
     * {@code synchronized}, so that a blocked write does not pin a carrier thread on JDK 21.
     */
    private static final class SessionLink implements WorkerLink {
        /** Frames waiting to be written to one worker before it counts as not reading. */
        static final int MAX_QUEUED = 10_000;

        private final WsSession session;
        private final ProtocolCodec codec;
        private final String peer;
        private final ReentrantLock writing = new ReentrantLock();
        private final ExecutorService outbox;
        private final AtomicInteger queued = new AtomicInteger();
        /** Pings sent and not yet answered; a pong answers them all (they carry no payload to tell apart). */
        private final Queue<CompletableFuture<Void>> pings = new ConcurrentLinkedQueue<>();

        SessionLink(WsSession session, ProtocolCodec codec, String peer) {
            this.session = session;
            this.codec = codec;
            this.peer = peer;
            this.outbox = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("efferent-send-" + peer).factory());
        }

        @Override
        public void send(Message message) {
            String frame = codec.encode(message);
            if (queued.incrementAndGet() > MAX_QUEUED) {
                queued.decrementAndGet();
                LOG.log(Level.WARNING, "Worker at {0} is not reading: {1} frames wait for it; disconnecting it", peer,
                        MAX_QUEUED);
                close(1008, "not reading its frames");
                return;
            }
            later(() -> {
                try {
                    write(() -> session.send(frame, true));
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, "Could not send {0} to worker at {1}: {2}", message.type(), peer,
                            e.getMessage());
                } finally {
                    queued.decrementAndGet();
                }
            });
        }

        @Override
        public void close(int code, String reason) {
            later(() -> {
                try {
                    write(() -> session.close(code, reason));
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, "Could not close the connection of worker at {0}: {1}", peer, e.getMessage());
                }
            });
            outbox.shutdown();
        }

        @Override
        public CompletionStage<Void> ping() {
            CompletableFuture<Void> answer = new CompletableFuture<>();
            pings.add(answer);
            // Not through the outbox: a ping must not wait behind a backlog; and off the caller's thread (the
            // router's): a half-open link with a full send buffer blocks the write, and the caller's timeout must
            // still fire.
            Thread.ofVirtual().name("efferent-ping").start(() -> {
                try {
                    write(() -> session.ping(BufferData.empty()));
                } catch (RuntimeException e) {
                    pings.remove(answer);
                    answer.completeExceptionally(e);
                }
            });
            return answer;
        }

        void pong(BufferData buffer) {
            try {
                write(() -> session.pong(buffer));
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "Could not answer a ping of worker at {0}: {1}", peer, e.getMessage());
            }
        }

        /** The socket is gone: the outbox's thread ends once what is queued has failed. */
        void ended() {
            outbox.shutdown();
        }

        void answered() {
            for (CompletableFuture<Void> p = pings.poll(); p != null; p = pings.poll()) {
                p.complete(null);
            }
        }

        @Override
        public String describe() {
            return peer;
        }

        private void write(Runnable write) {
            writing.lock();
            try {
                write.run();
            } finally {
                writing.unlock();
            }
        }

        private void later(Runnable work) {
            try {
                outbox.execute(work);
            } catch (RejectedExecutionException e) {
                LOG.log(Level.DEBUG, "Connection of worker at {0} is closed; nothing more is sent", peer);
            }
        }
    }
}
