package dev.efferent.tools.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A transport that remembers the request id of each {@code tools/call} by its progress token, so that a call can be
 * cancelled with {@code notifications/cancelled}, which the SDK does not send itself.
 */
final class CancellingTransport implements McpClientTransport {
    private final McpClientTransport delegate;
    private final Map<Object, Object> requestIds = new ConcurrentHashMap<>();

    CancellingTransport(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    /** Tells the server to stop the call whose progress token is {@code token}; nothing if it has ended. */
    void cancel(Object token, String reason) {
        Object id = requestIds.remove(token);
        if (id != null) {
            delegate.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION,
                    "notifications/cancelled", Map.of("requestId", id, "reason", reason))).subscribe();
        }
    }

    /** The call whose progress token is {@code token} has ended. */
    void ended(Object token) {
        requestIds.remove(token);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCRequest r && r.params() instanceof McpSchema.CallToolRequest call
                && call.meta() != null && call.meta().get("progressToken") != null) {
            requestIds.put(call.meta().get("progressToken"), r.id());
        }
        return delegate.sendMessage(message);
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
        return delegate.unmarshalFrom(data, type);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }
}
