package dev.efferent.queue.postgres;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * Announces enqueued and finished tasks for this brain, outside the transactions that made them. PostgreSQL
 * serialises the commits of transactions that notified (they take one lock on the notification queue), so a
 * {@code pg_notify} in every enqueue and completion put a queue of commits behind one another. Here one thread sends
 * what has piled up since its last statement, in one statement: at once when nothing is in flight (no added delay at
 * low load), and as one batch per round trip under load.
 * <p>
 * Each notice carries this brain's origin ({@code <origin>|work}), so that its own listener passes it over: the
 * brain already knows of those changes, and a claim on its own notice would find nothing. (The rarer notices sent in
 * their own transaction carry none, and reach every brain.) It sends over a connection of its own, outside the pool.
 * <p>
 * Only other brains need these notices, so none is sent while no other brain listens on the queue's channel: a brain
 * alone on its database (the usual deployment) announces no enqueue and no completion. Whether one listens is looked
 * up in {@code pg_stat_activity} (the listeners' application name, which names the channel) at most once a second,
 * when there is something to send; a brain that starts listening between two looks misses notices for that second,
 * as after a lost notice.
 * <p>
 * A notice is sent after its change committed; a brain that dies in between loses it, which costs only time: every
 * router polls the queue as well ({@code tasks.poll-interval}).
 */
final class PgNotifier implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PgNotifier.class.getName());
    /** PostgreSQL refuses payloads of 8000 bytes or more. */
    private static final int MAX_PAYLOAD = 7_000;
    private static final String SEP = "\u001f";
    /** Ends the origin at the start of a notice; no origin or notice text contains it. */
    static final char ORIGIN = '|';

    /** How long a look at the other listeners holds. */
    private static final long LOOK_NANOS = 1_000_000_000L;

    private final PgSettings settings;
    private final String origin;
    private final IntSupplier ownListener;
    private final Set<String> finished = new LinkedHashSet<>();
    private final Thread thread;
    private boolean work;
    private boolean closed;
    private long lastWarning;
    /** Used by the notifier's thread only. */
    private Connection connection;
    private PreparedStatement statement;
    private PreparedStatement listeners;
    private boolean othersListen;
    private long lookedAt;
    private boolean looked;

    /**
     * @param origin      this brain's mark on its notices
     * @param ownListener the process id of this brain's own listening backend (0: none), not counted as another
     */
    PgNotifier(PgSettings settings, String origin, IntSupplier ownListener) {
        this.settings = settings;
        this.origin = origin;
        this.ownListener = ownListener;
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
        try {
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
                send(payloads(sendWork, ids).stream().map(p -> origin + ORIGIN + p).toList());
            }
        } finally {
            disconnect();
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
        SQLException failed = null;
        // A second try on a new connection: the first may have died while idle (a restarted server, a killed backend).
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                if (connection == null) {
                    connect();
                }
                if (!othersListen()) {
                    return;
                }
                statement.setString(1, settings.channel());
                statement.setString(2, String.join(SEP, payloads));
                statement.setString(3, SEP);
                statement.executeQuery().close();
                return;
            } catch (SQLException e) {
                disconnect();
                failed = e;
            }
        }
        // Lost: the other brains see these changes at their next poll.
        long now = System.nanoTime();
        if (now - lastWarning > 60_000_000_000L) {
            lastWarning = now;
            LOG.log(Level.WARNING, "Could not announce queue changes to other brains ({0}); they see them at their "
                    + "next poll", PgDatabase.rootMessage(failed));
        }
    }

    /** Whether a brain other than this one listens on the database, looked up at most once a second. */
    private boolean othersListen() throws SQLException {
        long now = System.nanoTime();
        if (!looked || now - lookedAt > LOOK_NANOS) {
            listeners.setString(1, PgListener.name(settings));
            listeners.setInt(2, ownListener.getAsInt());
            try (ResultSet rs = listeners.executeQuery()) {
                rs.next();
                othersListen = rs.getLong(1) > 0;
            }
            looked = true;
            lookedAt = now;
        }
        return othersListen;
    }

    private void connect() throws SQLException {
        Connection c = PgDatabase.dedicated(settings, "efferent-notify");
        try {
            try (Statement s = c.createStatement()) {
                // A transaction that notifies gets a transaction id and so a commit record; it need not wait for the
                // disk: notices are not kept across a crash of the database anyway (decision 24).
                s.execute("SET synchronous_commit = off");
            }
            statement = c.prepareStatement("SELECT pg_notify(?, p) FROM unnest(string_to_array(?, ?)) AS p");
            listeners = c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    + "AND application_name = ? AND pid <> ?");
            connection = c;
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void disconnect() {
        Connection c = connection;
        connection = null;
        statement = null;
        listeners = null;
        looked = false;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                LOG.log(Level.DEBUG, "Closing the notifier's connection failed", e);
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
