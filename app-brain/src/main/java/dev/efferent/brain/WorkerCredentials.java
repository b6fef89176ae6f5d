package dev.efferent.brain;

import dev.efferent.pairing.Pairing;
import dev.efferent.router.PairedIdentity;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;

import java.util.Optional;

/**
 * What lets a worker in: the shared worker secret (scripts, CI; it may register as any worker), or a paired
 * machine's own token (it may register only with the worker id it paired with). Neither configured lets no one in.
 */
public final class WorkerCredentials {
    private static final String PREFIX = "Bearer ";
    private final Optional<BearerToken> secret;
    private final Optional<Pairing> pairing;

    /**
     * A worker let in.
     *
     * @param paired who its token says it is; empty for the shared secret
     */
    record Admitted(Optional<PairedIdentity> paired) {
    }

    /** Lets in the workers that show the shared {@code secret}. */
    WorkerCredentials(String secret) {
        this.secret = Optional.of(new BearerToken(secret));
        this.pairing = Optional.empty();
    }

    /** Lets in the machines {@code pairing} paired, each with its own token. */
    WorkerCredentials(Pairing pairing) {
        this.secret = Optional.empty();
        this.pairing = Optional.of(pairing);
    }

    /** Lets in the workers that show the shared {@code secret}, and the machines {@code pairing} paired. */
    WorkerCredentials(String secret, Pairing pairing) {
        this.secret = Optional.of(new BearerToken(secret));
        this.pairing = Optional.of(pairing);
    }

    /**
     * Who the request's {@code Authorization: Bearer …} lets in, if anyone.
     *
     * @throws dev.efferent.queue.QueueException if the paired tokens cannot be read (the database is down)
     */
    Optional<Admitted> check(Headers headers) {
        if (secret.isPresent() && secret.get().accepts(headers)) {
            return Optional.of(new Admitted(Optional.empty()));
        }
        String value = headers.first(HeaderNames.AUTHORIZATION).orElse("");
        if (pairing.isEmpty() || !value.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return Optional.empty();
        }
        // A lookup by the token's hash: no comparison whose time depends on the token.
        return pairing.get().connecting(value.substring(PREFIX.length()).strip())
                .map(w -> new Admitted(Optional.of(new PairedIdentity(w.workerId(), w.name()))));
    }

    /**
     * Whether the request carries a credential that lets a worker in, without noting a connection.
     *
     * @throws dev.efferent.queue.QueueException if the paired tokens cannot be read
     */
    boolean accepts(Headers headers) {
        if (secret.isPresent() && secret.get().accepts(headers)) {
            return true;
        }
        String value = headers.first(HeaderNames.AUTHORIZATION).orElse("");
        return pairing.isPresent() && value.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
                && pairing.get().find(value.substring(PREFIX.length()).strip()).isPresent();
    }
}
