package dev.efferent.brain;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.approvals.Approvals;
import dev.efferent.calls.Gateway;
import dev.efferent.conversations.ChatService;
import dev.efferent.pairing.Pairing;
import dev.efferent.router.Router;
import dev.efferent.scheduler.Scheduler;
import io.helidon.webserver.http.HttpRouting;

/** The REST API at {@code /api/v1} ({@link ApiService}), and the pairing exchange beside it ({@link PairingApi}). */
final class ApiFeature implements BrainFeature {
    private final Router router;
    private final ChatService chat;
    private final Approvals approvals;
    private final Scheduler scheduler;
    private final Pairing pairing;
    private final BearerToken apiToken;
    private final ObjectMapper json;

    ApiFeature(Router router, ChatService chat, Approvals approvals, Scheduler scheduler, Pairing pairing,
               BearerToken apiToken, ObjectMapper json) {
        this.pairing = pairing;
        this.scheduler = scheduler;
        this.router = router;
        this.chat = chat;
        this.approvals = approvals;
        this.apiToken = apiToken;
        this.json = json;
    }

    @Override
    public void http(HttpRouting.Builder routing) {
        // Before the API's token check: a machine pairing has a one-time code, not the API token.
        PairingApi open = new PairingApi(pairing, json, new Views(json));
        routing.post(PairingApi.EXCHANGE, (req, res) -> {
            Answer a = open.exchange(req);
            res.status(a.status()).header(io.helidon.http.HeaderValues.CONTENT_TYPE_JSON).send(a.body().toString());
        });
        routing.register("/api/v1", new ApiService(new Gateway(router, approvals), chat, approvals, scheduler, pairing,
                apiToken, json));
    }
}
