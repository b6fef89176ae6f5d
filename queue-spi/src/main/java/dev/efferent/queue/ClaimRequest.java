package dev.efferent.queue;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * A worker asking for work.
 *
 * @param workerId     the worker; becomes the lease owner
 * @param capabilities the tools it can run; only tasks for these are claimed
 * @param limit        at most this many tasks (its free slots)
 * @param lease        how long the claim holds before it expires unless started or renewed
 */
public record ClaimRequest(String workerId, Set<String> capabilities, int limit, Duration lease) {
    public ClaimRequest {
        Objects.requireNonNull(workerId, "workerId");
        capabilities = Set.copyOf(capabilities);
        if (limit < 1) {
            throw new QueueException("claim limit must be at least 1, got " + limit);
        }
        Objects.requireNonNull(lease, "lease");
        if (lease.isNegative() || lease.isZero()) {
            throw new QueueException("lease must be positive, got " + lease);
        }
    }
}
