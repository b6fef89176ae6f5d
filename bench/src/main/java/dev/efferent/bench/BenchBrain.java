package dev.efferent.bench;

import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.TaskQueue;
import dev.efferent.plugin.Settings;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.WorkerConnection;
import dev.efferent.router.WorkerLink;
import io.helidon.common.buffers.BufferData;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.websocket.WsRouting;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A brain in this process: the real router over a real queue, behind a Helidon WebSocket endpoint like the
 * brain's; plus a plain echo endpoint, the floor the round trip is compared with.
 */
final class BenchBrain implements AutoCloseable {
    final TaskQueue queue;
    final Router router;
    final WebServer server;

    BenchBrain(String provider, Map<String, String> queueSettings) {
        queue = Queues.providers().build().select(provider).open(
                key -> Optional.ofNullable(queueSettings.get(key)), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(true).withHeartbeatInterval(Duration.ofSeconds(15)),
                queue, Optional.empty(), new ProtocolCodec(), Clock.systemUTC());
        server = WebServer.builder().host("127.0.0.1").port(0)
                .connectionOptions(io.helidon.common.socket.SocketOptions.builder().tcpNoDelay(true).build())
                .addRouting(WsRouting.builder()
                        .endpoint("/ws/worker", () -> new Bridge(router))
                        .endpoint("/echo", Echo::new))
                .build().start();
    }

    int port() {
        return server.port();
    }

    @Override
    public void close() {
        router.close();
        server.stop();
        queue.close();
    }

    /** What the brain's WorkerEndpoint does, without authentication: frames to the router, messages back. */
    private static final class Bridge implements WsListener {
        private final Router router;
        private final ProtocolCodec codec = new ProtocolCodec();
        private WorkerConnection connection;

        Bridge(Router router) {
            this.router = router;
        }

        @Override
        public void onOpen(WsSession session) {
            connection = router.connect(new WorkerLink() {
                @Override
                public synchronized void send(Message message) {
                    session.send(codec.encode(message), true);
                }

                @Override
                public void close(int code, String reason) {
                    session.close(code, reason);
                }

                @Override
                public String describe() {
                    return "bench";
                }
            });
        }

        @Override
        public void onMessage(WsSession session, String text, boolean last) {
            connection.receive(text);
        }

        @Override
        public void onPing(WsSession session, BufferData buffer) {
            session.pong(buffer);
        }

        @Override
        public void onClose(WsSession session, int status, String reason) {
            connection.closed("closed");
        }

        @Override
        public void onError(WsSession session, Throwable t) {
            connection.closed("error");
        }
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
