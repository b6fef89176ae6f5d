package dev.efferent.brain;

import dev.efferent.channel.spi.Channel;
import dev.efferent.router.RouterListener;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.websocket.WsRouting;

import java.util.List;

/**
 * One part of the brain's web server: the HTTP routes and WebSocket endpoints it serves, in the way of Helidon's
 * {@code HttpFeature}, which covers HTTP alone. A {@link BrainFeatureProvider} builds it; the brain's assembly adds
 * its routes, its chat channels and its router listeners, so that nothing registers itself. Every request passes the
 * brain's {@link RequestGuard} first; a WebSocket endpoint checks it again on its upgrade.
 */
public interface BrainFeature {
    /** Adds this feature's HTTP routes. The default adds none. */
    default void http(HttpRouting.Builder routing) {
    }

    /** Adds this feature's WebSocket endpoints. The default adds none. */
    default void sockets(WsRouting.Builder routing) {
    }

    /** The chat channels this feature brings, added to the brain's conversations before they start. */
    default List<Channel> channels() {
        return List.of();
    }

    /** What this feature must hear of tasks and workers, registered with the router. */
    default List<RouterListener> listeners() {
        return List.of();
    }
}
