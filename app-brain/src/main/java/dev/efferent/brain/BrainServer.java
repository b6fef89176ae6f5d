package dev.efferent.brain;

import io.helidon.common.socket.SocketOptions;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;
import io.helidon.webserver.observe.health.HealthObserverConfig;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import io.helidon.webserver.websocket.WsConfig;
import io.helidon.webserver.websocket.WsRouting;

import java.util.List;

/** The brain's web server: the guard, then each feature in order, the health and metrics observers. */
final class BrainServer {
    private BrainServer() {
    }

    /**
     * Starts the server.
     *
     * @param settings  where it listens, and the frame limit
     * @param guard     the filter every request passes first
     * @param features  what it serves, in order
     * @param readiness what {@code /observe/health} asks
     */
    static WebServer start(BrainSettings settings, RequestGuard guard, List<BrainFeature> features,
                           List<ReadinessCheck> readiness) {
        HealthObserverConfig.Builder health = HealthObserver.builder().details(true);
        readiness.forEach(health::addCheck);
        var builder = WebServer.builder()
                .host(settings.host())
                .port(settings.port())
                .maxPayloadSize(4L * settings.maxFrameBytes())
                // Workers send accepted, progress and result as small frames back to back: without TCP_NODELAY
                // each waits for the previous one's delayed ACK (about 40 ms).
                .connectionOptions(SocketOptions.builder().tcpNoDelay(true).build())
                .addFeature(ObserveFeature.builder()
                        .addObserver(health.build())
                        .addObserver(MetricsObserver.create())
                        .build())
                .routing(r -> {
                    r.addFilter(guard);
                    features.forEach(f -> f.http(r));
                });
        WsRouting.Builder sockets = WsRouting.builder();
        features.forEach(f -> f.sockets(sockets));
        // A frame whose header announces more than the limit is refused from the header, unread: the WebSocket
        // layer closes the link with 1009 (it gives no way to answer with an error frame first). Conforming peers
        // never send one; a message in fragments gets frame_too_large at its first fragment over (WorkerEndpoint).
        builder.addProtocol(WsConfig.builder().maxFrameLength(settings.maxFrameBytes()).build())
                .addRouting(sockets);
        return builder.build().start();
    }
}
