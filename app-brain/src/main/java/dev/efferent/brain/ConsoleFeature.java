package dev.efferent.brain;

import dev.efferent.brain.console.ConsoleChannel;
import dev.efferent.brain.console.ConsoleEndpoint;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.staticcontent.StaticContentService;
import io.helidon.webserver.websocket.WsRouting;

/** The web console: its page at {@code /}, its socket at {@code /ws/console}. Registered last: {@code /} takes the rest. */
final class ConsoleFeature implements BrainFeature {
    private static final String PATH = "/ws/console";
    private final ConsoleChannel console;
    private final BearerToken apiToken;
    private final RequestGuard guard;
    private final Views views;

    ConsoleFeature(ConsoleChannel console, BearerToken apiToken, RequestGuard guard, Views views) {
        this.console = console;
        this.apiToken = apiToken;
        this.guard = guard;
        this.views = views;
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
}
