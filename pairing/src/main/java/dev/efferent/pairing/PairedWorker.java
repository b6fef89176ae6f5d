package dev.efferent.pairing;

import java.time.Instant;
import java.util.Optional;

/**
 * A machine that joined with a pairing code and holds a token of its own.
 *
 * @param workerId      its persistent worker id: the only id its token lets it register with
 * @param name          its name when it paired, which {@code /workers revoke} takes
 * @param pairedAt      when it paired
 * @param lastConnected when it last opened a connection with its token, if it has
 */
public record PairedWorker(String workerId, String name, Instant pairedAt, Optional<Instant> lastConnected) {
}
