package dev.efferent.router;

import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.protocol.WorkerHeartbeat;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.Future;

/**
 * One worker connection as the router sees it: decodes frames on the transport's thread, answers refused
 * ones, disconnects a peer that keeps sending them, and hands messages to the router's thread.
 */
final class Connection implements WorkerConnection {
    private static final System.Logger LOG = System.getLogger(Connection.class.getName());
    /** More refused frames than this within {@link #ABUSE_WINDOW} close the connection with 1008. */
    static final int MAX_REFUSED = 10;
    static final Duration ABUSE_WINDOW = Duration.ofMinutes(1);

    final WorkerLink link;
    final boolean local;
    /** Who this connection's credential says it is, if it is a paired machine's token. */
    final Optional<PairedIdentity> paired;
    private final Router router;
    private final ProtocolCodec codec;
    private final Clock clock;
    private final Deque<Instant> refused = new ArrayDeque<>();
    /** Set on the router's thread once the worker has registered. */
    WorkerSession session;
    /** Router's thread: a registration is waiting for the check of a live worker with the same id. */
    boolean registering;
    /** Router's thread: the transport reported the connection gone. */
    boolean gone;
    /** Closes the connection if it does not register in time; cancelled once it has, or is gone. */
    volatile Future<?> registrationTimer;
    /**
     * When the worker last heartbeated, set on the transport's thread as the frame arrives, so a router busy
     * with a slow queue never mistakes a live worker for a silent one.
     */
    volatile Instant lastHeartbeat;
    /** When anything (a frame, an answer to a ping) was last heard from the peer; set on any thread. */
    volatile Instant lastHeard;
    /** A ping is out and not yet answered. */
    volatile boolean probing;

    /** A connection let in with the shared worker secret, or the brain's own in-process worker ({@code local}). */
    Connection(Router router, WorkerLink link, boolean local, ProtocolCodec codec, Clock clock) {
        this.paired = Optional.empty();
        this.router = router;
        this.link = link;
        this.local = local;
        this.codec = codec;
        this.clock = clock;
        this.lastHeard = clock.instant();
    }

    /** A paired machine's connection: its credential says who it is. */
    Connection(Router router, WorkerLink link, ProtocolCodec codec, Clock clock, PairedIdentity paired) {
        this.paired = Optional.of(paired);
        this.router = router;
        this.link = link;
        this.local = false;
        this.codec = codec;
        this.clock = clock;
        this.lastHeard = clock.instant();
    }

    /** Something came from the peer: it is alive. */
    void heard() {
        lastHeard = clock.instant();
    }

    @Override
    public void receive(String frame) {
        heard();
        Message message;
        try {
            message = codec.decode(frame);
        } catch (ProtocolException e) {
            refuse(e);
            return;
        }
        receive(message);
    }

    @Override
    public void refuse(ProtocolException e) {
        LOG.log(Level.WARNING, "Refused a frame from worker {0}: {1}", who(), e.getMessage());
        link.send(ErrorMessage.of(e));
        if (tooManyRefused()) {
            LOG.log(Level.WARNING, "Disconnecting worker {0}: more than {1} refused frames in a minute", who(),
                    MAX_REFUSED);
            link.close(1008, "too many invalid frames");
        }
    }

    /** The largest frame this brain accepts from the worker, told to it in {@code worker:ack}. */
    int maxFrameBytes() {
        return codec.maxFrameBytes();
    }

    @Override
    public void receive(Message message) {
        heard();
        if (message instanceof WorkerHeartbeat) {
            lastHeartbeat = clock.instant();
        }
        router.post(() -> router.onMessage(this, message));
    }

    @Override
    public void closed(String why) {
        if (!probing) {
            // The peer closed or the socket ended: the last sign of it. (A link the watch gave up is not heard.)
            heard();
        }
        router.post(() -> router.onClosed(this, why));
    }

    String who() {
        WorkerSession s = session;
        return s == null ? link.describe() : s.name + " (" + s.id + ")";
    }

    private synchronized boolean tooManyRefused() {
        Instant now = clock.instant();
        refused.addLast(now);
        while (!refused.isEmpty() && refused.peekFirst().isBefore(now.minus(ABUSE_WINDOW))) {
            refused.removeFirst();
        }
        return refused.size() > MAX_REFUSED;
    }
}
