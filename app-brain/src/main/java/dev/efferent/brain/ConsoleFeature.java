package dev.efferent.brain;

import dev.efferent.approvals.Approvals;
import dev.efferent.brain.console.ConsoleChannel;
import dev.efferent.brain.console.ConsoleEndpoint;
import dev.efferent.channel.spi.Channel;
import dev.efferent.conversations.ChatService;
import dev.efferent.pairing.Pairing;
import dev.efferent.router.RouterListener;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.staticcontent.StaticContentService;
import io.helidon.webserver.websocket.WsRouting;

import java.util.List;

/**
 * The web console: its page at {@code /}, its socket at {@code /ws/console}, and its channel. Served last
 * ({@link ConsoleFeatureProvider}'s weight): {@code /} takes the rest.
 */
final class ConsoleFeature implements BrainFeature {
    private static final String PATH = "/ws/console";
    private final ConsoleChannel console;
    private final BearerToken apiToken;
    private final RequestGuard guard;
    private final Views views;

    ConsoleFeature(BrainContext brain) {
        ChatService chat = brain.chat();
        Approvals approvals = brain.approvals();
        Pairing pairing = brain.pairing();
        this.console = new ConsoleChannel(brain.router(), c -> chat.history(c, BrainAssembly.HISTORY), brain.json(),
                approvals::lastWord, pairing::paired);
        this.apiToken = brain.apiToken();
        this.guard = brain.guard();
        this.views = brain.views();
    }

    @Override
    public void http(HttpRouting.Builder routing) {
        routing.get(PATH, (req, res) -> {
            // Reached only when the upgrade was refused (a wrong token) or not asked for.
            Status status = req.headers().contains(HeaderNames.AUTHORIZATION)
                    ? Status.UNAUTHORIZED_401 : Status.BAD_REQUEST_400;
            if (status == Status.UNAUTHORIZED_401) {
                guard.refusals().warn("Refused a console connection from {0}: wrong API token", Peers.of(req));
            }
            res.status(status).header(HeaderValues.CONTENT_TYPE_JSON)
                    .send(views.error(status.code(), status == Status.UNAUTHORIZED_401
                            ? "wrong API token" : "open a WebSocket here and send "
                            + "'Authorization: Bearer <token>' or {\"type\": \"auth\", \"token\": "
                            + "\"…\"} as the first frame").toString());
        });
        routing.register("/", StaticContentService.builder("web-console", Brain.class.getClassLoader())
                .welcomeFileName("index.html")
                .build());
    }

    @Override
    public void sockets(WsRouting.Builder routing) {
        routing.endpoint(PATH, () -> new ConsoleEndpoint(console, apiToken, guard::refusal, guard.refusals()));
    }

    @Override
    public List<Channel> channels() {
        return List.of(console);
    }

    @Override
    public List<RouterListener> listeners() {
        // The console shows tasks and workers as they change.
        return List.of(console);
    }
}
