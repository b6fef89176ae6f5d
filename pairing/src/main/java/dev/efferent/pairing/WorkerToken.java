package dev.efferent.pairing;

/**
 * A token given to a machine for a pairing code: shown once, to that machine; the brain keeps only its hash.
 *
 * @param worker the paired machine
 * @param token  what it sends as {@code Authorization: Bearer …} on its WebSocket
 */
public record WorkerToken(PairedWorker worker, String token) {
    @Override
    public String toString() {
        return "WorkerToken[worker=" + worker + ", token=…]";
    }
}
