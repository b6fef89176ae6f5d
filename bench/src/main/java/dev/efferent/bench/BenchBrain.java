package dev.efferent.bench;

import dev.efferent.brain.WorkerSocketFeature;
import dev.efferent.plugin.Settings;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.TaskQueue;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import dev.efferent.store.Store;
import io.helidon.common.socket.SocketOptions;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.websocket.WsRouting;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A brain in this process: the real router over a real queue, behind the brain's own worker socket
 * ({@link WorkerSocketFeature}: the secret, the guard, the per-worker outbox); plus a plain echo endpoint, the floor
 * the round trip is compared with.
 */
final class BenchBrain implements AutoCloseable {
    final TaskQueue queue;
    /** Beside the queue, as in a brain: the same provider, in the same database. */
    final Store store;
    final Router router;
    final WebServer server;
    /** The worker secret of this brain; {@link BenchWorker#connect(int, String, int)} uses it. */
    static final String SECRET = "bench-worker-secret";

    BenchBrain(String provider, Map<String, String> queueSettings) {
        queue = Queues.providers().build().select(provider).open(
                key -> Optional.ofNullable(queueSettings.get(key)), Clock.systemUTC());
        store = Stores.providers().build().select(provider).open(key -> Optional.ofNullable(queueSettings.get(key)),
                Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(true).withHeartbeatInterval(Duration.ofSeconds(15)),
                queue, store, new ProtocolCodec(), Clock.systemUTC());
        WsRouting.Builder sockets = WsRouting.builder().endpoint("/echo", Echo::new);
        WorkerSocketFeature.standalone(router, SECRET, new ProtocolCodec()).sockets(sockets);
        server = WebServer.builder().host("127.0.0.1").port(0)
                .connectionOptions(SocketOptions.builder().tcpNoDelay(true).build())
                .addRouting(sockets)
                .build().start();
    }

    int port() {
        return server.port();
    }

    @Override
    public void close() {
        router.close();
        server.stop();
        store.close();
        queue.close();
    }

    private static final class Echo implements WsListener {
        @Override
        public void onMessage(WsSession session, String text, boolean last) {
            session.send(text, last);
        }
    }

    static Settings none() {
        return Settings.empty();
    }
}
