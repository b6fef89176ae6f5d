package dev.efferent.brain.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.brain.BearerToken;
import dev.efferent.core.channel.Conversation;
import dev.efferent.core.channel.IncomingMessage;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;
import io.helidon.websocket.WsUpgradeException;

import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * One console tab's WebSocket at {@code /ws/console?conversation=<id>&token=<api token>}. Browsers cannot set
 * headers on a WebSocket, so the API token travels in the query; a wrong one is refused before the upgrade.
 */
public final class ConsoleEndpoint implements WsListener {
    private static final System.Logger LOG = System.getLogger(ConsoleEndpoint.class.getName());
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9-]{1,64}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ConsoleChannel console;
    private final BearerToken token;
    private String conversation = UUID.randomUUID().toString();
    private final StringBuilder partial = new StringBuilder();

    public ConsoleEndpoint(ConsoleChannel console, BearerToken token) {
        this.console = console;
        this.token = token;
    }

    @Override
    public Optional<Headers> onHttpUpgrade(HttpPrologue prologue, Headers headers) throws WsUpgradeException {
        var query = prologue.query();
        String given = query.contains("token") ? query.get("token") : "";
        if (token.required() && !token.matches(given) && !token.accepts(headers)) {
            LOG.log(Level.WARNING, "Refused a console connection: missing or wrong API token");
            throw new WsUpgradeException("missing or wrong API token");
        }
        if (query.contains("conversation") && ID.matcher(query.get("conversation")).matches()) {
            conversation = query.get("conversation");
        }
        return Optional.empty();
    }

    @Override
    public void onOpen(WsSession session) {
        console.opened(session, conversation);
    }

    @Override
    public void onMessage(WsSession session, String text, boolean last) {
        partial.append(text);
        if (!last) {
            return;
        }
        String frame = partial.toString();
        partial.setLength(0);
        try {
            JsonNode m = JSON.readTree(frame);
            if ("say".equals(m.path("type").asText()) && m.path("text").isTextual()) {
                console.inbox().receive(new IncomingMessage(new Conversation(ConsoleChannel.NAME, conversation),
                        "console", m.path("text").asText()));
            }
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "Ignored a console frame that is not a message: {0}", e.getMessage());
        }
    }

    @Override
    public void onClose(WsSession session, int status, String reason) {
        console.closed(session);
    }

    @Override
    public void onError(WsSession session, Throwable t) {
        console.closed(session);
    }
}
