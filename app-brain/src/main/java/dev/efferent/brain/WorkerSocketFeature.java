package dev.efferent.brain;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.QueueException;
import dev.efferent.router.Router;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.websocket.WsRouting;

import java.lang.System.Logger.Level;
import java.util.List;

/**
 * Workers' way in: {@code /ws/worker}, with the worker secret or a paired machine's token checked on the upgrade. An upgrade refused, or a plain
 * request, reaches the HTTP route instead, which answers 401 (or 404 on a brain without hands) and logs it.
 */
public final class WorkerSocketFeature implements BrainFeature {
    private static final System.Logger LOG = System.getLogger(WorkerSocketFeature.class.getName());
    static final String PATH = "/ws/worker";
    private final Router router;
    private final WorkerCredentials credentials;
    private final ProtocolCodec codec;
    private final RequestGuard guard;
    private final Views views;
    private final boolean hands;

    WorkerSocketFeature(Router router, WorkerCredentials credentials, ProtocolCodec codec, RequestGuard guard, Views views,
                        boolean hands) {
        this.router = router;
        this.credentials = credentials;
        this.codec = codec;
        this.guard = guard;
        this.views = views;
        this.hands = hands;
    }

    /**
     * The worker socket on its own, for a server other than the brain's (the benchmarks'): loopback names only,
     * workers authenticated with {@code workerSecret}.
     */
    public static WorkerSocketFeature standalone(Router router, String workerSecret, ProtocolCodec codec) {
        Views views = new Views(new ObjectMapper());
        return new WorkerSocketFeature(router, new WorkerCredentials(workerSecret), codec,
                new RequestGuard(List.of(), List.of(), new BearerToken(workerSecret), views), views, true);
    }

    @Override
    public void http(HttpRouting.Builder routing) {
        routing.get(PATH, (req, res) -> {
            boolean accepted;
            try {
                accepted = hands && credentials.accepts(req.headers());
            } catch (QueueException e) {
                LOG.log(Level.WARNING, "Could not check a worker''s token from {0}: {1}", Peers.of(req),
                        e.getMessage());
                res.status(Status.SERVICE_UNAVAILABLE_503).header(HeaderValues.CONTENT_TYPE_JSON)
                        .send(views.error(503, "the brain cannot check workers' tokens right now (its store is "
                                + "unreachable; its log says why); the worker retries by itself").toString());
                return;
            }
            if (accepted) {
                // The right secret, but no WebSocket: a proxy that drops the upgrade, or a worker asking why.
                res.status(Status.create(426, "Upgrade Required")).header(HeaderValues.CONTENT_TYPE_JSON)
                        .send(views.error(426, "the worker secret or token is right, but this is not a WebSocket upgrade: "
                                + "check that a proxy in between passes 'Upgrade: websocket' on").toString());
                return;
            }
            Status status = hands ? Status.UNAUTHORIZED_401 : Status.NOT_FOUND_404;
            guard.refusals().warn("Refused a worker connection from {0}: {1}", Peers.of(req),
                    hands ? "missing, wrong or revoked worker secret or token" : "hands are not enabled");
            String message = hands
                    ? "a worker must open a WebSocket here with 'Authorization: Bearer <worker.secret>' or the token it "
                    + "got by pairing (a revoked token is refused: pair again with bin/efferent pair)"
                    : "this brain runs in single-machine mode (hands.enabled=false); workers cannot connect";
            res.status(status).header(HeaderValues.CONTENT_TYPE_JSON)
                    .send(views.error(status.code(), message).toString());
        });
    }

    @Override
    public void sockets(WsRouting.Builder routing) {
        if (hands) {
            routing.endpoint(PATH, () -> new WorkerEndpoint(router, credentials, codec, guard));
        }
    }
}
