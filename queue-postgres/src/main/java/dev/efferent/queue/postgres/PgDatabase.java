package dev.efferent.queue.postgres;

import dev.efferent.queue.QueueException;
import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import io.helidon.dbclient.DbClient;

import java.net.ConnectException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The queue's connection pool. Every failure comes out as a {@link QueueException} saying what the queue could not
 * do and why; after a lost connection, calls fail at once for a moment instead of each waiting for the pool.
 */
final class PgDatabase implements AutoCloseable {
    private static final long FAIL_FAST_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int DEADLOCK_ATTEMPTS = 3;
    private static final System.Logger LOG = System.getLogger(PgDatabase.class.getName());

    private final DbClient client;
    private final AtomicLong deadlockRetries = new AtomicLong();
    private volatile long unreachableUntilNanos;
    private volatile String outage = "";

    private PgDatabase(DbClient client) {
        this.client = client;
    }

    /** Hikari logs a failed first connection with its stack trace; the failure is reported, with advice, instead. */
    private static final Logger POOL_LOG = Logger.getLogger(
            "com.zaxxer.hikari.pool.HikariPool");

    static PgDatabase connect(PgSettings settings) {
        Level level = POOL_LOG.getLevel();
        POOL_LOG.setLevel(Level.OFF);
        try {
            return new PgDatabase(DbClient.create(Config.create(ConfigSources.create(Map.of(
                    "source", "jdbc",
                    "connection.url", settings.url(),
                    "connection.username", settings.user(),
                    "connection.password", settings.password(),
                    "connection.maximumPoolSize", String.valueOf(settings.poolSize()),
                    "connection.connectionTimeout",
                    String.valueOf(Math.max(250, settings.connectTimeout().toMillis())),
                    "connection.poolName", "efferent-queue-" + settings.schema(),
                    "connection.dataSource.socketTimeout",
                    String.valueOf(Math.max(1, settings.queryTimeout().toSeconds())),
                    "connection.dataSource.ApplicationName", "efferent")))));
        } catch (RuntimeException e) {
            QueueException failed = describe("connect to " + settings.url() + " as " + settings.user(), e);
            throw new QueueException(failed.getMessage() + advice(e, settings), e);
        } finally {
            POOL_LOG.setLevel(level);
        }
    }

    /**
     * What to do about a failure that a user fixes in PostgreSQL (a missing role or database, a wrong password,
     * no right to create the queue's schema), as commands to run; empty for others.
     */
    /** {@code name} if it can be pasted into the advice as it is (a plain lower-case name), else empty. */
    private static String identifier(String name) {
        return name != null && name.matches("[a-z_][a-z0-9_]{0,62}") ? name : "";
    }

    static String advice(Throwable e, PgSettings settings) {
        String state = "";
        String said = "";
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                state = sql.getSQLState();
                said = String.valueOf(sql.getMessage());
            }
        }
        String user = identifier(settings.user());
        String path = settings.url().replaceFirst("^jdbc:postgresql://[^/]*/?", "");
        String db = identifier(path.contains("?") ? path.substring(0, path.indexOf('?')) : path);
        if (user.isEmpty() || db.isEmpty()) {
            return "";
        }
        return switch (state) {
            // 28000 is also pg_hba.conf turning the connection away: that is not a missing role.
            case "28000" -> !said.contains("does not exist") ? ". Check pg_hba.conf on the server: it does not let "
                    + user + " connect from here" : ". Create the role: sudo -u postgres psql -c \"CREATE ROLE " + user
                    + " LOGIN PASSWORD 'change-me'\" (then set EFFERENT_DB_PASSWORD), or set EFFERENT_DB_USER to a "
                    + "role that exists";
            case "28P01" -> ". Check the password: db.password (EFFERENT_DB_PASSWORD)";
            case "3D000" -> ". Create the database: sudo -u postgres createdb --owner " + user + " " + db;
            case "42501" -> ". Let " + user + " create the queue's schema: sudo -u postgres psql -c \"GRANT CREATE ON "
                    + "DATABASE " + db + " TO " + user + "\", or make it the database's owner (createdb --owner "
                    + user + ")";
            default -> "";
        };
    }

    /**
     * A connection of its own, outside the pool, for the listener and the notifier (they hold it for as long as it
     * works) and for migrations; the pool's socket timeout, and TCP keep-alive so a dead peer is noticed.
     */
    static Connection dedicated(PgSettings settings, String applicationName) throws SQLException {
        return dedicated(settings, applicationName, settings.queryTimeout());
    }

    /** As {@link #dedicated(PgSettings, String)}, with another socket timeout; zero for none. */
    static Connection dedicated(PgSettings settings, String applicationName, Duration socketTimeout)
            throws SQLException {
        return DriverManager.getConnection(settings.url(), properties(settings, applicationName, socketTimeout));
    }

    /**
     * As {@link #dedicated(PgSettings, String)}, with sockets from the named factory (pgjdbc's {@code socketFactory}: it
     * loads the class by name). A {@code socketFactory} named in the database URL wins.
     */
    static Connection dedicated(PgSettings settings, String applicationName, String socketFactory)
            throws SQLException {
        Properties props = properties(settings, applicationName, settings.queryTimeout());
        props.setProperty("socketFactory", socketFactory);
        return DriverManager.getConnection(settings.url(), props);
    }

    /** Whether pgjdbc refused a connection because it could not make the named socket factory. */
    static boolean factoryNotMade(SQLException e, String socketFactory) {
        return e.getCause() instanceof ReflectiveOperationException && e.getMessage() != null
                && e.getMessage().contains(socketFactory);
    }

    private static Properties properties(PgSettings settings, String applicationName,
            Duration socketTimeout) {
        Properties props = new Properties();
        props.setProperty("user", settings.user());
        props.setProperty("password", settings.password());
        props.setProperty("connectTimeout", String.valueOf(Math.max(1, settings.connectTimeout().toSeconds())));
        props.setProperty("socketTimeout", socketTimeout.isZero() ? "0"
                : String.valueOf(Math.max(1, socketTimeout.toSeconds())));
        props.setProperty("tcpKeepAlive", "true");
        props.setProperty("ApplicationName", applicationName);
        return props;
    }

    /** Work on one connection, which may fail as JDBC does. */
    @FunctionalInterface
    interface Work<T> {
        T on(Sql sql) throws SQLException;
    }

    /** Runs {@code work} as one autocommit statement (or a few); {@code what} completes "could not ...". */
    <T> T run(String what, Work<T> work) {
        failFastWhileUnreachable(what);
        try (Connection connection = client.unwrap(Connection.class)) {
            return work.on(new Sql(connection));
        } catch (QueueException e) {
            throw e;
        } catch (SQLException | RuntimeException e) {
            throw failure(what, e);
        }
    }

    /**
     * {@link #run} for work that is one statement in autocommit: if PostgreSQL aborts it as a deadlock's victim, it
     * changed nothing, and it is run again (at most {@value #DEADLOCK_ATTEMPTS} runs in all). Statements that lock many rows
     * lock them in id order, so this is a last resort.
     */
    <T> T runStatement(String what, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return run(what, work);
            } catch (QueueException e) {
                if (attempt >= DEADLOCK_ATTEMPTS || !deadlock(e)) {
                    throw e;
                }
                deadlockRetries.incrementAndGet();
                LOG.log(System.Logger.Level.INFO, "PostgreSQL aborted the statement to {0} in a deadlock; running it "
                        + "again", what);
            }
        }
    }

    /** How many statements were run again after a deadlock, since this database was opened. */
    long deadlockRetries() {
        return deadlockRetries.get();
    }

    private static boolean deadlock(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && "40P01".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code work} in one transaction, committed when it returns and rolled back when it throws. */
    <T> T inTransaction(String what, Work<T> work) {
        failFastWhileUnreachable(what);
        // The pool sets autocommit back when the connection returns to it.
        try (Connection connection = client.unwrap(Connection.class)) {
            connection.setAutoCommit(false);
            try {
                T result = work.on(new Sql(connection));
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollback(connection, e);
                throw e;
            }
        } catch (QueueException e) {
            throw e;
        } catch (SQLException | RuntimeException e) {
            throw failure(what, e);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    private static void rollback(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private void failFastWhileUnreachable(String what) {
        if (System.nanoTime() - unreachableUntilNanos < 0) {
            throw new QueueException("PostgreSQL could not " + what + ": the database is unreachable (" + outage
                    + "); retrying in the background");
        }
    }

    private QueueException failure(String what, Throwable e) {
        if (connectionLost(e)) {
            outage = rootMessage(e);
            unreachableUntilNanos = System.nanoTime() + FAIL_FAST_NANOS;
        }
        return describe(what, e);
    }

    static QueueException describe(String what, Throwable e) {
        return new QueueException("PostgreSQL could not " + what + ": " + rootMessage(e), e);
    }

    /** Whether {@code e} says the database cannot be reached, as opposed to a bad statement. */
    private static boolean connectionLost(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof ConnectException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
                return true;
            }
        }
        return false;
    }

    /** The innermost cause's message, with a hint when it says the server could not be reached. */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return message.strip().toLowerCase(Locale.ROOT).startsWith("connection") || message.contains("refused")
                ? message + " (is PostgreSQL running and reachable?)" : message;
    }
}
