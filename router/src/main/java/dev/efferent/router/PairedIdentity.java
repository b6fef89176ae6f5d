package dev.efferent.router;

import java.util.Objects;

/**
 * Who a paired machine's token says it is: a connection let in with it may register only with this worker id and
 * this name, so it can neither take another machine's id nor receive tasks meant for another machine's name.
 *
 * @param workerId the worker id it paired with
 * @param name     the name it paired as
 */
public record PairedIdentity(String workerId, String name) {
    public PairedIdentity {
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(name, "name");
    }
}
