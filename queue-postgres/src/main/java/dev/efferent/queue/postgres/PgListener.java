package dev.efferent.queue.postgres;

import dev.efferent.queue.QueueEvents;
import dev.efferent.queue.postgres.socket.ListenerSocketFactory;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Listens on the queue's channel over a dedicated connection (outside the pool) and turns other processes'
 * notifications into {@link QueueEvents}. Reconnects after a lost connection; a notification missed meanwhile only delays work,
 * because the router also polls.
 */
final class PgListener implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PgListener.class.getName());
    private static final int WAIT_MS = 500;
    /** How listening connections name themselves: notifiers count other brains' listeners by it. */
    static final String APPLICATION_NAME = "efferent-listen";

    private final PgSettings settings;
    private final String origin;
    private final String socketFactory;
    /** Whether pgjdbc could make the listener's own sockets; once it could not, it is not asked again. */
    private boolean ownSockets = true;
    private volatile boolean running;
    /** The process id of the listening backend; 0 while not listening. */
    private volatile int backendPid;
    private Thread thread;

    /**
     * @param origin this brain's mark on its own notices, which are not delivered: subscribers hear of changes other
     *               processes made
     */
    PgListener(PgSettings settings, String origin) {
        this(settings, origin, ListenerSocketFactory.class.getName());
    }

    /** As pgjdbc would be given another factory for the listener's sockets (a test's). */
    PgListener(PgSettings settings, String origin, String socketFactory) {
        this.settings = settings;
        this.origin = origin;
        this.socketFactory = socketFactory;
    }

    synchronized void start(QueueEvents events) {
        if (thread != null) {
            throw new IllegalStateException("already subscribed");
        }
        running = true;
        thread = Thread.ofPlatform().daemon().name("efferent-queue-listen").start(() -> listen(events));
    }

    private void listen(QueueEvents events) {
        boolean warned = false;
        while (running) {
            try (Connection connection = connect()) {
                backendPid = connection.unwrap(PGConnection.class).getBackendPID();
                try (Statement s = connection.createStatement()) {
                    // Set here as well: an ApplicationName in the database URL would win over the connection's own.
                    s.execute("SET application_name = '" + name(settings) + "'");
                    s.execute("LISTEN " + settings.channel());
                }
                if (warned) {
                    LOG.log(Level.INFO, "Listening for queue notifications again");
                    warned = false;
                }
                // Anything that happened while we were not listening: look once.
                events.workAvailable();
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(WAIT_MS);
                    if (notifications != null) {
                        for (PGNotification n : notifications) {
                            deliver(events, n.getParameter());
                        }
                    }
                }
                backendPid = 0;
            } catch (SQLException | RuntimeException e) {
                backendPid = 0;
                if (!running) {
                    return;
                }
                if (!warned) {
                    LOG.log(Level.WARNING, "Queue notifications interrupted ({0}); retrying every second, polling "
                            + "meanwhile", PgDatabase.rootMessage(e));
                    warned = true;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /**
     * A connection on the listener's own sockets ({@link ListenerSocketFactory}): notifications come through at once,
     * where pgjdbc's own sockets hand each over a millisecond late. If pgjdbc cannot make them, on its usual ones.
     */
    private Connection connect() throws SQLException {
        if (ownSockets) {
            try {
                return PgDatabase.dedicated(settings, name(settings), socketFactory);
            } catch (SQLException e) {
                if (!PgDatabase.factoryNotMade(e, socketFactory)) {
                    throw e;
                }
                ownSockets = false;
                LOG.log(Level.WARNING, "pgjdbc could not make the queue listener''s own sockets ({0}); listening on "
                        + "its usual ones, which hand each notification over a millisecond late. Load pgjdbc and "
                        + "efferent.queue.postgres in one module layer, as the brain''s runtime does",
                        String.valueOf(e.getCause()));
                try {
                    return PgDatabase.dedicated(settings, name(settings));
                } catch (SQLException again) {
                    again.addSuppressed(e);
                    throw again;
                }
            }
        }
        return PgDatabase.dedicated(settings, name(settings));
    }

    private void deliver(QueueEvents events, String notice) {
        String payload = notice;
        int mark = notice.indexOf(PgNotifier.ORIGIN);
        if (mark >= 0) {
            if (notice.substring(0, mark).equals(origin)) {
                return;
            }
            payload = notice.substring(mark + 1);
        }
        try {
            if (payload.equals("work")) {
                events.workAvailable();
            } else if (payload.startsWith("done:")) {
                // Several ids, comma-separated, from PgNotifier.
                for (String id : payload.substring(5).split(",")) {
                    events.taskFinished(id);
                }
            } else if (payload.startsWith("cancel:")) {
                events.taskCancelled(payload.substring(7));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "A queue event handler failed on '" + payload + "'", e);
        }
    }

    /**
     * The application name of a brain's listening connection on this queue's channel, as PostgreSQL keeps it (63 bytes
     * at most; schema names are ASCII).
     */
    static String name(PgSettings settings) {
        String name = APPLICATION_NAME + " " + settings.channel();
        return name.length() > 63 ? name.substring(0, 63) : name;
    }

    /** The process id of the backend listening for this brain, 0 while none is. */
    int backendPid() {
        return backendPid;
    }

    @Override
    public void close() {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.interrupt();
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
