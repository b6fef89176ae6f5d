package dev.efferent.brain;

import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.websocket.WsRouting;

/**
 * One part of the brain's web server: the HTTP routes and WebSocket endpoints it serves. The brain only
 * assembles features (the REST API, the worker socket, the web console, next the MCP endpoint), in the way of
 * Helidon's {@code HttpFeature}, which covers HTTP alone. Every request passes the brain's {@link RequestGuard}
 * first; a WebSocket endpoint checks it again on its upgrade.
 */
public interface BrainFeature {
    /** Adds this feature's HTTP routes. The default adds none. */
    default void http(HttpRouting.Builder routing) {
    }

    /** Adds this feature's WebSocket endpoints. The default adds none. */
    default void sockets(WsRouting.Builder routing) {
    }
}
