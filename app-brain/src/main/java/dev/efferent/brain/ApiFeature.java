package dev.efferent.brain;

import dev.efferent.channel.spi.Channel;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.http.HttpRouting;

import java.util.List;

/** The REST API at {@code /api/v1} ({@link ApiService}), and the pairing exchange beside it ({@link PairingApi}). */
final class ApiFeature implements BrainFeature {
    private final BrainContext brain;

    ApiFeature(BrainContext brain) {
        this.brain = brain;
    }

    @Override
    public void http(HttpRouting.Builder routing) {
        // Before the API's token check: a machine pairing has a one-time code, not the API token.
        PairingApi open = new PairingApi(brain.pairing(), brain.json(), brain.views());
        routing.post(PairingApi.EXCHANGE, (req, res) -> {
            Answer a = open.exchange(req);
            res.status(a.status()).header(HeaderValues.CONTENT_TYPE_JSON).send(a.body().toString());
        });
        routing.register("/api/v1", new ApiService(brain.gateway(), brain.chat(), brain.approvals(),
                brain.scheduler(), brain.pairing(), brain.apiToken(), brain.json()));
    }

    @Override
    public List<Channel> channels() {
        // REST conversations are read through the API; the channel is there so that they count as reachable.
        return List.of(new ApiChannel());
    }
}
