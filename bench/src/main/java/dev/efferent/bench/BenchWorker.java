package dev.efferent.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.TaskAccepted;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerHeartbeat;
import dev.efferent.protocol.WorkerRegister;
import io.helidon.common.buffers.BufferData;
import io.helidon.common.socket.SocketOptions;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webclient.websocket.WsClient;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A worker speaking the protocol with one tool, {@code noop}, that answers at once: it measures what the brain and
 * the wire add, not a tool.
 */
final class BenchWorker implements WsListener {
    static final ObjectMapper JSON = new ObjectMapper();
    static final ToolDescriptor NOOP = new ToolDescriptor("noop", "does nothing", JSON.createObjectNode().put("type", "object"),
            "LOCAL", true, false, true, false);
    private static final ObjectNode RESULT = (ObjectNode) JSON.createObjectNode().put("isError", false)
            .set("content", JSON.createArrayNode().add(JSON.createObjectNode().put("type", "text").put("text", "ok")));

    private final ProtocolCodec codec = new ProtocolCodec();
    private final String id;
    private final int slots;
    final CompletableFuture<WorkerAck> registered = new CompletableFuture<>();
    private volatile WsSession session;
    private static final ExecutorService REPLIES =
            Executors.newVirtualThreadPerTaskExecutor();

    BenchWorker(String id, int slots) {
        this.id = id;
        this.slots = slots;
    }

    /** Connects to a {@link BenchBrain}, with its secret. */
    static BenchWorker connect(int port, String id, int slots) {
        return connect(port, id, slots, BenchBrain.SECRET);
    }

    static BenchWorker connect(int port, String id, int slots, String secret) {
        BenchWorker worker = new BenchWorker(id, slots);
        var builder = WsClient.builder().baseUri("ws://127.0.0.1:" + port)
                .socketOptions(SocketOptions.builder().tcpNoDelay(true)
                        // Idle workers hear nothing for long stretches; the default 30 s read timeout would end them.
                        .readTimeout(Duration.ofHours(1)).build());
        if (secret != null) {
            builder.addHeader(HeaderValues.create(HeaderNames.AUTHORIZATION,
                    "Bearer " + secret));
        }
        builder.build().connect("/ws/worker", worker);
        return worker;
    }

    @Override
    public void onOpen(WsSession session) {
        this.session = session;
        send(new WorkerRegister(Message.PROTOCOL_VERSION, id, id, "bench", "bench", List.of(NOOP), slots));
    }

    @Override
    public void onPing(WsSession session, BufferData buffer) {
        // The brain pings quiet links and drops those that do not answer.
        session.pong(buffer);
    }

    @Override
    public void onMessage(WsSession session, String text, boolean last) {
        Message m;
        try {
            m = codec.decode(text);
        } catch (RuntimeException e) {
            System.err.println("bench worker " + id + " cannot read " + text + ": " + e);
            return;
        }
        if (Boolean.getBoolean("efferent.bench.trace")) {
            System.err.println("bench worker " + id + " got " + m.type());
        }
        switch (m) {
            case WorkerAck ack -> registered.complete(ack);
            case TaskDispatch d -> REPLIES.execute(() -> {
                // Replies leave from another thread, as a real worker's do (its tools run on their own threads).
                send(new TaskAccepted(d.taskId()));
                send(TaskResult.completed(d.taskId(), RESULT, 0));
            });
            default -> {
            }
        }
    }

    @Override
    public void onError(WsSession session, Throwable t) {
        System.err.println("bench worker " + id + ": " + t);
        t.printStackTrace();
    }

    void heartbeat() {
        send(new WorkerHeartbeat(1, 0, 0));
    }

    synchronized void send(Message m) {
        session.send(codec.encode(m), true);
    }

    void close() {
        session.close(1000, "done");
    }
}
