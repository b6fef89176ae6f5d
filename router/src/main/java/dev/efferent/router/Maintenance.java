package dev.efferent.router;

import dev.efferent.core.tools.DurationText;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskNotFoundException;
import dev.efferent.queue.TaskQueue;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;

/**
 * Maintenance, on timers: silent workers and dead links, lease renewal and expiry, retention of finished tasks,
 * forgetting long-offline workers. Runs on the router's thread only.
 */
final class Maintenance {
    private static final System.Logger LOG = System.getLogger(Maintenance.class.getName());
    private final RouterSettings settings;
    private final TaskQueue queue;
    private final Clock clock;
    private final RouterState state;
    private final BiFunction<Runnable, Duration, Future<?>> scheduler;
    private final Dispatch dispatch;
    private final WorkerRegistration workers;
    /** Publishes what the router knows mid-turn: a lost worker shows offline before its link is closed. */
    private final Runnable publish;
    /** Tells whoever waits for a task that now waits for an offline machine (Waits.recheckOffline). */
    private final Runnable recheckWaits;
    private static final int UNFINISHED_POLL_EVERY = 10;
    private long polls;
    private Instant lastCleanup = Instant.EPOCH;
    private Instant lastRemembered = Instant.EPOCH;
    /** A renewal failed because the queue did not answer: leases are renewed again before any is expired. */
    private boolean leasesBehind;
    /**
     * Leases are expired only once this brain has been up for a whole lease. While no brain ran, nobody could
     * renew them: a live worker still running a task gets the time to reconnect (its backoff, 30 s at most) and
     * renew it, instead of the task failing as "lease expired" and its real result being turned away.
     */
    private final Instant expireLeasesFrom;

    Maintenance(RouterSettings settings, TaskQueue queue, Clock clock, RouterState state,
                BiFunction<Runnable, Duration, Future<?>> scheduler, Dispatch dispatch, WorkerRegistration workers, Runnable publish,
                Runnable recheckWaits) {
        this.publish = publish;
        this.recheckWaits = recheckWaits;
        this.settings = settings;
        this.queue = queue;
        this.clock = clock;
        this.state = state;
        this.scheduler = scheduler;
        this.dispatch = dispatch;
        this.workers = workers;
        // Without hands the only lease owner is the in-process worker of an earlier brain process: nothing to wait for.
        this.expireLeasesFrom = settings.handsEnabled() ? clock.instant().plus(settings.lease()) : clock.instant();
    }

    /** Sets the timers: heartbeats, links and the poll, each at its pace ({@code every} posts the work each time). */
    void start(BiConsumer<Duration, Runnable> every) {
        every.accept(Duration.ofMillis(Math.max(50, settings.heartbeatInterval().toMillis() / 4)),
                this::checkHeartbeats);
        every.accept(Duration.ofMillis(Math.max(50, settings.linkTimeout().toMillis() / 3)), this::probeLinks);
        every.accept(settings.pollInterval(), this::maintain);
    }

    /** Every few heartbeat intervals' fraction: declares silent workers offline. */
    void checkHeartbeats() {
        Instant now = clock.instant();
        Duration limit = settings.heartbeatInterval().multipliedBy(2);
        for (WorkerSession s : List.copyOf(state.sessions.values())) {
            if (!s.local && Duration.between(s.lastHeartbeat(), now).compareTo(limit) > 0) {
                String why = "no heartbeat for " + DurationText.of(Duration.ofMillis(
                        Duration.between(s.lastHeartbeat(), now).toMillis()));
                // Offline first, then closed: whoever sees the close finds the worker offline.
                workers.lose(s, why);
                publish.run();
                s.link.close(4001, "heartbeat timeout");
            }
        }
    }

    /**
     * A third of the link timeout: pings links that have been quiet, and declares dead those from which nothing
     * (no frame, no answer to a ping) came for the link timeout. A worker killed, or its network gone without a
     * close, is noticed in seconds instead of at the next heartbeat.
     */
    void probeLinks() {
        Instant now = clock.instant();
        Duration timeout = settings.linkTimeout();
        for (WorkerSession s : List.copyOf(state.sessions.values())) {
            Connection c = s.connection();
            Duration silent = Duration.between(c.lastHeard, now);
            if (s.local) {
                continue;
            }
            if (silent.compareTo(timeout) > 0) {
                workers.lose(s, "nothing heard for " + DurationText.of(Duration.ofMillis(silent.toMillis()))
                        + ", not even an answer to a ping");
                publish.run();
                s.link.close(4002, "no answer for " + DurationText.of(timeout));
            } else if (silent.compareTo(timeout.dividedBy(3)) >= 0 && !c.probing) {
                c.probing = true;
                s.link.ping().whenComplete((answered, failure) -> {
                    c.probing = false;
                    if (failure == null) {
                        c.heard();
                    } else {
                        scheduler.apply(() -> {
                            if (s.online) {
                                workers.lose(s, "the link failed: " + failure.getMessage());
                                publish.run();
                                s.link.close(4002, "link failed");
                            }
                        }, Duration.ZERO);
                    }
                });
            }
        }
    }

    /** Every poll interval: renews leases of dispatched tasks, requeues expired ones, and looks for work. */
    void maintain() {
        Instant now = clock.instant();
        Duration half = settings.lease().dividedBy(2);
        boolean renewed = true;
        for (Inflight f : state.inflight.values()) {
            if (!f.stopping() && Duration.between(f.leaseRenewedAt, now).compareTo(half) >= 0) {
                try {
                    queue.renewLease(f.task.id(), f.session.id, settings.lease());
                    f.leaseRenewedAt = now;
                } catch (QueueException e) {
                    renewed &= e instanceof IllegalTransitionException || e instanceof TaskNotFoundException;
                    LOG.log(RouterState.level(e), "Lease of task {0} not renewed: {1}", f.task.id(), e.getMessage());
                }
            }
        }
        if (!renewed) {
            // The queue did not answer (PostgreSQL down): our own workers' leases could not be renewed, so none is
            // expired now; once it answers again, they are renewed before any is.
            leasesBehind = true;
        } else if (leasesBehind) {
            leasesBehind = !renewLeasesOfOnlineWorkers();
            renewed = !leasesBehind;
        }
        // Tasks finished by another brain, in case its notice was lost. One queued here and not seen to finish is
        // dispatched and finished here unless another brain takes it, so it is read only every tenth poll: each read
        // is a round trip of the router's thread, and under load many callers wait for queued tasks.
        boolean readQueuedHere = polls++ % UNFINISHED_POLL_EVERY == 0;
        for (String id : List.copyOf(state.waiters.keySet())) {
            if (!state.inflight.containsKey(id) && (readQueuedHere || !state.unfinished.containsKey(id))) {
                try {
                    dispatch.finishedElsewhere(id);
                } catch (QueueException e) {
                    LOG.log(RouterState.level(e), "Could not check task {0}: {1}", id, e.getMessage());
                }
            }
        }
        if (renewed && !now.isBefore(expireLeasesFrom)) {
            try {
                for (Task t : queue.requeueExpiredLeases()) {
                    if (t.status().isFinished()) {
                        state.finished(t);
                    }
                }
            } catch (QueueException e) {
                LOG.log(Level.WARNING, "Could not requeue expired leases", e);
            }
        }
        cleanUp(now);
        forgetOfflineWorkers(now);
        dispatch.pumpAll();
        // Besides a worker lost or a tool gone, a task can come to wait for an offline machine other ways (a retry
        // after its worker was lost, a tool refused, a batch not stored): looked at every poll, as callers once did.
        recheckWaits.run();
    }

    /** Renews the leases of every online worker (after an outage of the queue); whether all were. */
    private boolean renewLeasesOfOnlineWorkers() {
        for (WorkerSession s : List.copyOf(state.sessions.values())) {
            if (s.online && !s.local) {
                try {
                    queue.renewLeases(s.id, settings.lease());
                } catch (QueueException e) {
                    LOG.log(Level.WARNING, "Could not renew the leases of worker {0}: {1}", s.name, e.getMessage());
                    return false;
                }
            }
        }
        return true;
    }

    private void forgetOfflineWorkers(Instant now) {
        if (Duration.between(lastRemembered, now).compareTo(Duration.ofHours(1)) >= 0) {
            // Kept fresh, so that after a crash (or at another brain) an online machine is not taken for a long-gone one.
            lastRemembered = now;
            state.sessions.values().stream().filter(s -> !s.local)
                    .forEach(s -> state.known.remember(s.info(), List.copyOf(s.tools.values())));
        }
        List<String> forgotten = state.forget(now, settings.forgetAfter());
        if (!forgotten.isEmpty()) {
            LOG.log(Level.INFO, "Forgot {0} offline {1} not heard from for {2}: {3}", forgotten.size(),
                    forgotten.size() == 1 ? "worker" : "workers", DurationText.of(settings.forgetAfter()),
                    forgotten.size() > 10 ? forgotten.subList(0, 10) + " …" : forgotten);
        }
    }

    /** Once a minute: deletes tasks finished longer ago than the retention. */
    private void cleanUp(Instant now) {
        if (Duration.between(lastCleanup, now).compareTo(Duration.ofMinutes(1)) < 0) {
            return;
        }
        lastCleanup = now;
        try {
            int deleted = queue.deleteFinishedBefore(now.minus(settings.retention()));
            if (deleted > 0) {
                LOG.log(Level.INFO, "Deleted {0} tasks finished more than {1} ago", deleted,
                        DurationText.of(settings.retention()));
            }
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not delete old finished tasks: {0}", e.getMessage());
        }
    }
}
