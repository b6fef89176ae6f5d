package dev.efferent.brain;

import io.helidon.common.socket.PeerInfo;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.websocket.WsSession;

/** Where a request or socket came from, as {@code host:port}, for the log. No name lookup is made. */
public final class Peers {
    private Peers() {
    }

    /** The peer of an HTTP request (also of a WebSocket upgrade that fell through to HTTP). */
    public static String of(ServerRequest request) {
        return format(request.remotePeer());
    }

    /** The peer of an open WebSocket, or "an unknown peer" if the socket no longer says. */
    public static String of(WsSession session) {
        try {
            return format(session.socketContext().remotePeer());
        } catch (RuntimeException e) {
            return "an unknown peer";
        }
    }

    private static String format(PeerInfo peer) {
        return peer.host() + ":" + peer.port();
    }
}
