package dev.efferent.brain.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.brain.BearerToken;
import dev.efferent.brain.Peers;
import dev.efferent.brain.RefusalLog;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import io.helidon.common.buffers.BufferData;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;
import io.helidon.websocket.WsUpgradeException;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * One console tab's WebSocket at {@code /ws/console?conversation=<id>}. A page of another origin is refused
 * before the upgrade. With an API token, a client that can set headers sends {@code Authorization: Bearer …} on
 * the upgrade; a browser, which cannot, sends {@code {"type": "auth", "token": "…"}} as its first frame. The token
 * never travels in the URL, where proxies, logs and the browser's history keep it. A wrong token closes with 1008.
 */
public final class ConsoleEndpoint implements WsListener {
    private static final System.Logger LOG = System.getLogger(ConsoleEndpoint.class.getName());
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9-]{1,64}");

    private final ConsoleChannel console;
    /** Frames longer than this are refused: a console sends short chat lines. */
    private static final int MAX_FRAME_CHARS = 64 * 1024;

    private final BearerToken token;
    /** How long a connection may stay open without sending the token. */
    private static final Duration AUTH_TIMEOUT = Duration.ofSeconds(10);

    private final BiFunction<HttpPrologue, Headers, Optional<String>> guard;
    private final RefusalLog refusals;
    private String conversation = UUID.randomUUID().toString();
    private final StringBuilder partial = new StringBuilder();
    private volatile Thread authTimer;
    private volatile boolean authenticated;

    /**
     * An endpoint for one connection.
     *
     * @param console the channel the conversation belongs to
     * @param token   the API token, if the brain has one
     * @param guard   why an upgrade with these headers is refused (a foreign Origin or Host), or empty
     * @param refusals where refused connections are logged
     */
    public ConsoleEndpoint(ConsoleChannel console, BearerToken token,
                           BiFunction<HttpPrologue, Headers, Optional<String>> guard, RefusalLog refusals) {
        this.console = console;
        this.token = token;
        this.guard = guard;
        this.refusals = refusals;
    }

    @Override
    public Optional<Headers> onHttpUpgrade(HttpPrologue prologue, Headers headers) throws WsUpgradeException {
        Optional<String> refusal = guard.apply(prologue, headers);
        if (refusal.isPresent()) {
            throw new WsUpgradeException(refusal.get());
        }
        authenticated = !token.required() || token.accepts(headers);
        if (!authenticated && headers.contains(HeaderNames.AUTHORIZATION)) {
            // Logged by the HTTP route it falls through to, which knows the peer.
            throw new WsUpgradeException("wrong API token");
        }
        var query = prologue.query();
        if (query.contains("conversation") && ID.matcher(query.get("conversation")).matches()) {
            conversation = query.get("conversation");
        }
        return Optional.empty();
    }

    @Override
    public void onOpen(WsSession session) {
        if (authenticated) {
            console.opened(session, conversation);
            return;
        }
        // A socket that never sends the token would otherwise stay open, and hold its resources, for ever.
        // Interrupted once the token came or the socket closed, so a flood of sockets is not held for the timeout.
        authTimer = Thread.ofVirtual().name("efferent-console-auth").start(() -> {
            try {
                Thread.sleep(AUTH_TIMEOUT);
            } catch (InterruptedException e) {
                return;
            }
            if (!authenticated) {
                try {
                    session.close(1008, "no API token within " + AUTH_TIMEOUT.toSeconds() + " s");
                } catch (RuntimeException e) {
                    LOG.log(Level.DEBUG, "Console socket already gone: {0}", e.getMessage());
                }
            }
        });
    }

    @Override
    public void onMessage(WsSession session, String text, boolean last) {
        partial.append(text);
        if (partial.length() > MAX_FRAME_CHARS) {
            partial.setLength(0);
            if (!authenticated) {
                refusals.warn("Refused a console connection from {0}: a first frame of more than {1} characters",
                        Peers.of(session), MAX_FRAME_CHARS);
            }
            session.close(1009, "message too long");
            return;
        }
        if (!last) {
            return;
        }
        String frame = partial.toString();
        partial.setLength(0);
        try {
            JsonNode m = console.json().readTree(frame);
            if (!authenticated) {
                authenticate(session, m);
                return;
            }
            if ("say".equals(m.path("type").asText()) && m.path("text").isTextual()) {
                console.inbox().receive(new IncomingMessage(new Conversation(ConsoleChannel.NAME, conversation),
                        "console", m.path("text").asText()));
            }
        } catch (JsonProcessingException e) {
            if (!authenticated) {
                refusals.warn("Refused a console connection from {0}: its first frame is not JSON",
                        Peers.of(session));
                session.close(1008, "missing or wrong API token");
                return;
            }
            LOG.log(Level.DEBUG, "Ignored a console frame that is not JSON: {0}", e.getOriginalMessage());
        }
    }


    private void authenticate(WsSession session, JsonNode m) {
        if ("auth".equals(m.path("type").asText()) && m.path("token").isTextual()
                && token.matches(m.path("token").asText())) {
            authenticated = true;
            stopAuthTimer();
            console.opened(session, conversation);
            return;
        }
        refusals.warn("Refused a console connection from {0}: missing or wrong API token in its first frame",
                Peers.of(session));
        session.close(1008, "missing or wrong API token");
    }

    @Override
    public void onPing(WsSession session, BufferData buffer) {
        // RFC 6455: a ping is answered with a pong; Helidon leaves that to the listener.
        session.pong(buffer);
    }

    @Override
    public void onClose(WsSession session, int status, String reason) {
        stopAuthTimer();
        console.closed(session);
    }

    @Override
    public void onError(WsSession session, Throwable t) {
        stopAuthTimer();
        console.closed(session);
    }

    private void stopAuthTimer() {
        Thread timer = authTimer;
        if (timer != null) {
            timer.interrupt();
        }
    }
}
