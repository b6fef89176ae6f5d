package dev.efferent.queue.postgres;

import dev.efferent.queue.QueueException;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Announces enqueued and finished tasks for this brain, outside the transactions that made them. PostgreSQL
 * serialises the commits of transactions that notified (they take one lock on the notification queue), so a
 * {@code pg_notify} in every enqueue and completion put a queue of commits behind one another. Here one thread sends
 * what has piled up since its last statement, in one statement: at once when nothing is in flight (no added delay at
 * low load), and as one batch per round trip under load.
 * <p>
 * A notice is sent after its change committed; a brain that dies in between loses it, which costs only time: every
 * router polls the queue as well ({@code tasks.poll-interval}).
 */
final class PgNotifier implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PgNotifier.class.getName());
    /** PostgreSQL refuses payloads of 8000 bytes or more. */
    private static final int MAX_PAYLOAD = 7_000;
    private static final String SEP = "\u001f";

    private final PgDatabase db;
    private final String channel;
    private final Set<String> finished = new LinkedHashSet<>();
    private final Thread thread;
    private boolean work;
    private boolean closed;
    private long lastWarning;

    PgNotifier(PgDatabase db, String channel) {
        this.db = db;
        this.channel = channel;
        this.thread = Thread.ofPlatform().daemon().name("efferent-queue-notify").start(this::run);
    }

    /** Tasks became claimable. */
    synchronized void work() {
        work = true;
        notifyAll();
    }

    /** Tasks finished. */
    synchronized void finished(List<String> taskIds) {
        finished.addAll(taskIds);
        notifyAll();
    }

    private void run() {
        while (true) {
            boolean sendWork;
            List<String> ids;
            synchronized (this) {
                while (!work && finished.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (!work && finished.isEmpty()) {
                    return;
                }
                sendWork = work;
                ids = List.copyOf(finished);
                work = false;
                finished.clear();
            }
            send(payloads(sendWork, ids));
        }
    }

    /** "work" once, and the finished ids as "done:a,b,…" in as few notices as fit. */
    static List<String> payloads(boolean work, List<String> finishedIds) {
        List<String> payloads = new ArrayList<>();
        if (work) {
            payloads.add("work");
        }
        StringBuilder done = new StringBuilder();
        for (String id : finishedIds) {
            if (!done.isEmpty() && done.length() + id.length() + 1 > MAX_PAYLOAD) {
                payloads.add(done.toString());
                done.setLength(0);
            }
            done.append(done.isEmpty() ? "done:" : ",").append(id);
        }
        if (!done.isEmpty()) {
            payloads.add(done.toString());
        }
        return payloads;
    }

    private void send(List<String> payloads) {
        try {
            // A transaction that notifies gets a transaction id and so a commit record; it need not wait for the disk
            // (set_config, local to this one autocommit statement's transaction, so nothing stays on the pooled
            // connection): notices are not kept across a crash of the database anyway. Decision 24.
            db.run("announce queue changes", ex -> ex.query("SELECT pg_notify(?, p) FROM "
                    + "(SELECT set_config('synchronous_commit', 'off', true)) AS async, unnest(string_to_array(?, ?)) AS p",
                    channel, String.join(SEP, payloads), SEP).toList());
        } catch (QueueException e) {
            long now = System.nanoTime();
            if (now - lastWarning > 60_000_000_000L) {
                lastWarning = now;
                LOG.log(Level.WARNING, "Could not announce queue changes to other brains ({0}); they see them at "
                        + "their next poll", e.getMessage());
            }
        }
    }

    /** Sends what is still pending, then stops. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
