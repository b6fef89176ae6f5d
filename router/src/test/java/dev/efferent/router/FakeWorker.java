package dev.efferent.router;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskAccepted;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerHeartbeat;
import dev.efferent.protocol.WorkerRegister;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A worker that records what the router sends it and answers only when told to. */
final class FakeWorker implements WorkerLink {
    static final ObjectMapper JSON = new ObjectMapper();
    final String id;
    final BlockingQueue<Message> received = new LinkedBlockingQueue<>();
    /** How this fake answers the router's ping. */
    enum Liveness { ALIVE, SILENT, UNREACHABLE }

    volatile Liveness liveness = Liveness.ALIVE;
    volatile int closeCode;
    volatile String closeReason;
    WorkerConnection connection;

    FakeWorker(String id) {
        this.id = id;
    }

    static ToolDescriptor tool(String name, boolean readOnly) {
        return new ToolDescriptor(name, "fake " + name, JSON.createObjectNode().put("type", "object"), "LOCAL",
                readOnly, false, readOnly, false);
    }

    /** Connects, registers with these tools and keeps heartbeating; returns the ack. */
    WorkerAck register(Router router, int slots, ToolDescriptor... tools) {
        WorkerAck ack = registerSilently(router, slots, tools);
        heartbeating();
        return ack;
    }

    /** Connects and registers, but never heartbeats. */
    WorkerAck registerSilently(Router router, int slots, ToolDescriptor... tools) {
        connection = router.connect(this);
        connection.receive(new WorkerRegister(1, id, id, "host-" + id, "test", List.of(tools), slots));
        return next(WorkerAck.class);
    }

    /** The close code the router closed this link with, waiting up to 5 s for it. */
    int awaitClose() throws InterruptedException {
        for (int i = 0; i < 500 && closeCode == 0; i++) {
            Thread.sleep(10);
        }
        return closeCode;
    }

    /** The socket dies. */
    void disconnect(String why) {
        closeCode = -1;
        connection.closed(why);
    }

    @Override
    public void send(Message message) {
        received.add(message);
    }

    @Override
    public void close(int code, String reason) {
        closeCode = code;
        closeReason = reason;
    }

    @Override
    public CompletionStage<Void> ping() {
        return switch (liveness) {
            case ALIVE -> CompletableFuture.completedFuture(null);
            case SILENT -> new CompletableFuture<>();
            case UNREACHABLE -> CompletableFuture.failedFuture(new IllegalStateException("socket closed"));
        };
    }

    @Override
    public String describe() {
        return "fake:" + id;
    }

    <T extends Message> T next(Class<T> type) {
        try {
            Message m = received.poll(10, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError(id + " received nothing within 10s; expected " + type.getSimpleName());
            }
            if (!type.isInstance(m)) {
                throw new AssertionError(id + " expected " + type.getSimpleName() + " but received " + m);
            }
            return type.cast(m);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Nothing arrives within {@code ms}. */
    List<Message> quietFor(long ms) throws InterruptedException {
        Thread.sleep(ms);
        List<Message> got = new ArrayList<>();
        received.drainTo(got);
        return got;
    }

    void accept(TaskDispatch d) {
        connection.receive(new TaskAccepted(d.taskId()));
    }

    void progress(TaskDispatch d, int percent, String message) {
        connection.receive(new TaskProgress(d.taskId(), percent, message));
    }

    void complete(TaskDispatch d, String text) {
        complete(d.taskId(), text);
    }

    void complete(String taskId, String text) {
        ObjectNode result = JSON.createObjectNode();
        result.putArray("content").addObject().put("type", "text").put("text", text);
        result.put("isError", false);
        connection.receive(TaskResult.completed(taskId, result, 1));
    }

    void fail(TaskDispatch d, String error) {
        connection.receive(TaskResult.ended(d.taskId(), ResultStatus.FAILED, error, 1));
    }

    /** Keeps heartbeating every 100 ms until the router closes the link. */
    FakeWorker heartbeating() {
        Thread.ofVirtual().start(() -> {
            while (closeCode == 0) {
                heartbeat();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return this;
    }

    void heartbeat() {
        connection.receive(new WorkerHeartbeat(1, 0.1, 0));
    }
}
