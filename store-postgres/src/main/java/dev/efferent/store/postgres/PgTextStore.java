package dev.efferent.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.efferent.store.StoreException;
import dev.efferent.store.spi.TextStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Text in {@code <schema>.store_values} and {@code <schema>.store_logs}, on a small pool of its own. */
final class PgTextStore implements TextStore {
    private final HikariDataSource pool;
    private final String values;
    private final String logs;
    private final Clock clock;

    private PgTextStore(HikariDataSource pool, String schema, Clock clock) {
        this.pool = pool;
        this.values = schema + ".store_values";
        this.logs = schema + ".store_logs";
        this.clock = clock;
    }

    /** How long the migration at start may take, waiting for another brain's included. */
    static final Duration MIGRATION_TIMEOUT = Duration.ofMinutes(30);

    /** Connects, brings the schema up to date (moving the queue's old records in), and returns the store. */
    static PgTextStore open(PgStoreSettings settings, Clock clock) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(settings.url());
        config.setUsername(settings.user());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(settings.poolSize());
        config.setConnectionTimeout(Math.max(250, settings.connectTimeout().toMillis()));
        config.setPoolName("efferent-store-" + settings.schema());
        config.addDataSourceProperty("socketTimeout", String.valueOf(Math.max(1, settings.queryTimeout().toSeconds())));
        config.addDataSourceProperty("ApplicationName", "efferent-store");
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new StoreException("PostgreSQL could not connect to " + settings.url() + " as " + settings.user()
                    + " for the store: " + PgStoreSchema.rootMessage(e) + ". Check store.postgres.url and "
                    + "store.postgres.user (else queue.postgres.*, else EFFERENT_DB_URL and EFFERENT_DB_USER)", e);
        }
        try {
            try (Connection c = pool.getConnection()) {
                // Not the pool's 10-second statements: moving a large history of old records, or waiting for another
                // brain's migration, takes longer (the pool puts the timeout back when the connection returns).
                c.setNetworkTimeout(Runnable::run, (int) MIGRATION_TIMEOUT.toMillis());
                PgStoreSchema.migrate(c, settings.schema());
            }
            return new PgTextStore(pool, settings.schema(), clock);
        } catch (SQLException | RuntimeException e) {
            pool.close();
            throw e instanceof StoreException s ? s : new StoreException("could not create or migrate the store's "
                    + "tables in schema '" + settings.schema() + "': " + PgStoreSchema.rootMessage(e), e);
        }
    }

    /** A statement's parameters and what to do with its result. */
    @FunctionalInterface
    private interface Work<T> {
        T on(Connection c) throws SQLException;
    }

    private <T> T run(String what, Work<T> work) {
        try (Connection c = pool.getConnection()) {
            return work.on(c);
        } catch (SQLException | RuntimeException e) {
            throw new StoreException("PostgreSQL could not " + what + ": " + PgStoreSchema.rootMessage(e), e);
        }
    }

    private static PreparedStatement prepare(Connection c, String statement, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(statement);
        for (int i = 0; i < params.length; i++) {
            ps.setObject(i + 1, params[i]);
        }
        return ps;
    }

    private static int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, params)) {
            return ps.executeUpdate();
        }
    }

    private static List<String> strings(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, params); ResultSet rs = ps.executeQuery()) {
            List<String> all = new ArrayList<>();
            while (rs.next()) {
                all.add(rs.getString(1));
            }
            return all;
        }
    }

    private OffsetDateTime now() {
        return clock.instant().atOffset(ZoneOffset.UTC);
    }

    @Override
    public Optional<String> get(String namespace, String key) {
        return run("read " + key + " of " + namespace, c -> strings(c, "SELECT data FROM " + values
                + " WHERE namespace = ? AND key = ?", namespace, key)).stream().findFirst();
    }

    @Override
    public void put(String namespace, String key, String data) {
        run("keep " + key + " of " + namespace, c -> update(c, "INSERT INTO " + values + " (namespace, key, data, "
                + "updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET data = excluded.data, "
                + "updated_at = excluded.updated_at", namespace, key, data, now()));
    }

    @Override
    public boolean putIfAbsent(String namespace, String key, String data) {
        return run("add " + key + " to " + namespace, c -> update(c, "INSERT INTO " + values + " (namespace, key, "
                + "data, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (namespace, key) DO NOTHING", namespace, key, data,
                now())) > 0;
    }

    @Override
    public boolean compareAndSet(String namespace, String key, String expected, String data) {
        return run("replace " + key + " of " + namespace, c -> update(c, "UPDATE " + values + " SET data = ?, "
                + "updated_at = ? WHERE namespace = ? AND key = ? AND data = ?", data, now(), namespace, key,
                expected)) > 0;
    }

    @Override
    public boolean remove(String namespace, String key) {
        return run("remove " + key + " of " + namespace, c -> update(c, "DELETE FROM " + values
                + " WHERE namespace = ? AND key = ?", namespace, key)) > 0;
    }

    @Override
    public Map<String, String> entries(String namespace, String after, int limit) {
        // COLLATE "C": keys in the order of their code points, as the in-memory store sorts them.
        return run("list " + namespace, c -> {
            Map<String, String> found = new LinkedHashMap<>();
            try (PreparedStatement ps = prepare(c, "SELECT key, data FROM " + values + " WHERE namespace = ? AND "
                    + "key COLLATE \"C\" > ? ORDER BY key COLLATE \"C\" LIMIT ?", namespace, after, limit);
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getString(1), rs.getString(2));
                }
            }
            return found;
        });
    }

    @Override
    public void append(String namespace, String log, String data, int keep) {
        run("append to log " + log + " of " + namespace, c -> {
            update(c, "INSERT INTO " + logs + " (namespace, log, data, created_at) VALUES (?, ?, ?, ?)", namespace,
                    log, data, now());
            // Both walk (namespace, log, seq): the newest entry past the ones kept, and everything older than it.
            return update(c, "DELETE FROM " + logs + " WHERE namespace = ? AND log = ? AND seq <= (SELECT seq FROM "
                    + logs + " WHERE namespace = ? AND log = ? ORDER BY seq DESC OFFSET ? LIMIT 1)", namespace, log,
                    namespace, log, keep);
        });
    }

    @Override
    public List<String> tail(String namespace, String log, int limit) {
        return run("read log " + log + " of " + namespace, c -> strings(c, "SELECT data FROM (SELECT seq, data FROM "
                + logs + " WHERE namespace = ? AND log = ? ORDER BY seq DESC LIMIT ?) x ORDER BY seq", namespace, log,
                limit));
    }

    @Override
    public List<String> logs(String namespace, String start, int limit) {
        return run("list the logs of " + namespace, c -> strings(c, "SELECT log FROM " + logs + " WHERE namespace = ? "
                + "AND starts_with(log, ?) GROUP BY log ORDER BY max(seq) DESC LIMIT ?", namespace, start, limit));
    }

    @Override
    public boolean durable() {
        return true;
    }

    @Override
    public void close() {
        pool.close();
    }
}
