package dev.efferent.brain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.pairing.PairedWorker;
import dev.efferent.pairing.Pairing;
import dev.efferent.pairing.PairingCode;
import dev.efferent.pairing.PairingException;
import dev.efferent.pairing.WorkerToken;
import dev.efferent.queue.QueueException;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;

/**
 * Pairing over REST: {@code POST /api/v1/pairing-codes} makes a one-time code, {@code GET /api/v1/worker-tokens}
 * lists the paired machines, {@code DELETE /api/v1/worker-tokens/{name}} revokes one (all with the API token); and
 * {@link #EXCHANGE}, open to a machine with a code, trades the code for the machine's own token.
 */
final class PairingApi {
    /** Where a worker trades its code for a token: no API token, the code is the credential. */
    static final String EXCHANGE = "/api/v1/pair";
    private static final Status TOO_MANY = Status.create(429, "Too Many Requests");

    private final Pairing pairing;
    private final ObjectMapper json;
    private final Views views;

    PairingApi(Pairing pairing, ObjectMapper json, Views views) {
        this.pairing = pairing;
        this.json = json;
        this.views = views;
    }

    /** {@code POST /pairing-codes}. */
    Answer newCode(ServerRequest req) {
        if (!handsEnabled()) {
            return new Answer(Status.CONFLICT_409, views.error(409, "this brain runs in single-machine mode: no "
                    + "machine can join it; start it with --hands (hands.enabled: true) first"));
        }
        PairingCode code = pairing.newCode("the REST API (" + Peers.of(req) + ")");
        ObjectNode out = json.createObjectNode().put("code", code.code()).put("expiresAt", code.expiresAt().toString())
                .put("validForSeconds", Pairing.CODE_TTL.toSeconds()).put("command", code.command());
        return new Answer(Status.CREATED_201, out);
    }

    /** {@code GET /worker-tokens}: the paired machines (never their tokens, which the brain does not keep). */
    Answer list(ServerRequest req) {
        ObjectNode out = json.createObjectNode();
        var list = out.putArray("workers");
        pairing.workers().forEach(w -> list.add(view(w)));
        return new Answer(Status.OK_200, out);
    }

    /** {@code DELETE /worker-tokens/{name}}: the machine is disconnected at once and cannot come back. */
    Answer revoke(ServerRequest req) {
        try {
            Pairing.Revoked r = pairing.revoke(req.path().pathParameters().get("name"));
            return new Answer(Status.OK_200, view(r.worker()).put("revoked", true)
                    .put("disconnected", r.disconnected()));
        } catch (PairingException e) {
            return refused(e);
        }
    }

    /** {@code POST /api/v1/pair} with {@code {"code": …, "workerId": …, "name": …}}. */
    Answer exchange(ServerRequest req) {
        if (!handsEnabled()) {
            return new Answer(Status.NOT_FOUND_404, views.error(404, "this brain runs in single-machine mode "
                    + "(hands.enabled=false); machines cannot join it"));
        }
        JsonNode body;
        try {
            String text = req.content().hasEntity() ? req.content().as(String.class) : "";
            body = json.readTree(text.isBlank() ? "null" : text);
        } catch (JsonProcessingException e) {
            return bad("request body is not valid JSON: " + e.getOriginalMessage());
        }
        if (body == null || !body.isObject() || !body.path("code").isTextual()
                || !body.path("workerId").isTextual() || !body.path("name").isTextual()) {
            return bad("the body must be {\"code\": \"K7QM3-XWD8P\", \"workerId\": \"…\", \"name\": \"laptop\"}, as "
                    + "'bin/efferent worker --pair CODE' sends it");
        }
        try {
            WorkerToken t = pairing.exchange(body.path("code").textValue(), body.path("workerId").textValue(),
                    body.path("name").textValue(), Peers.of(req).replaceFirst(":\\d+$", ""));
            return new Answer(Status.CREATED_201, view(t.worker()).put("token", t.token()));
        } catch (PairingException e) {
            return refused(e);
        } catch (QueueException e) {
            return new Answer(Status.SERVICE_UNAVAILABLE_503, views.error(503, "the brain cannot keep the pairing "
                    + "right now: " + e.getMessage()));
        }
    }

    private boolean handsEnabled() {
        return pairing.handsEnabled();
    }

    private ObjectNode view(PairedWorker w) {
        ObjectNode n = json.createObjectNode().put("name", w.name()).put("workerId", w.workerId())
                .put("pairedAt", w.pairedAt().toString());
        n.put("lastConnected", w.lastConnected().map(Object::toString).orElse(null));
        return n;
    }

    private Answer refused(PairingException e) {
        Status status = switch (e.kind()) {
            case INVALID -> Status.BAD_REQUEST_400;
            case WRONG_CODE -> Status.FORBIDDEN_403;
            case TOO_MANY -> TOO_MANY;
            case NAME_TAKEN -> Status.CONFLICT_409;
            case NOT_FOUND -> Status.NOT_FOUND_404;
        };
        return new Answer(status, views.error(status.code(), e.getMessage()));
    }

    private Answer bad(String message) {
        return new Answer(Status.BAD_REQUEST_400, views.error(400, message));
    }
}
