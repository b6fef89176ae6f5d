package dev.efferent.queue.postgres;

import dev.efferent.queue.Records;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.efferent.queue.postgres.TaskRows.at;

/** Records in {@code <schema>.record_logs} and {@code <schema>.record_values}, beside the tasks. */
final class PgRecords implements Records {
    private final PgDatabase db;
    private final String logs;
    private final String values;
    private final Clock clock;

    PgRecords(PgDatabase db, String schema, Clock clock) {
        this.db = db;
        this.logs = schema + ".record_logs";
        this.values = schema + ".record_values";
        this.clock = clock;
    }

    @Override
    public void append(String log, String data, int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("a record log keeps at least 1 entry, got " + keep);
        }
        db.run("append to record log " + log, sql -> {
            sql.update("INSERT INTO " + logs + " (log, data, created_at) VALUES (?, ?, ?)", log, data,
                    at(clock.instant()));
            // Both walk (log, seq): the newest entry past the ones kept, and everything older than it.
            return sql.update("DELETE FROM " + logs + " WHERE log = ? AND seq <= (SELECT seq FROM " + logs
                    + " WHERE log = ? ORDER BY seq DESC OFFSET ? LIMIT 1)", log, log, keep);
        });
    }

    @Override
    public List<String> tail(String log, int limit) {
        return db.run("read record log " + log, sql -> sql.list("SELECT data FROM (SELECT seq, data FROM " + logs
                + " WHERE log = ? ORDER BY seq DESC LIMIT ?) x ORDER BY seq", row -> row.getString("data"), log,
                Math.max(0, limit)));
    }

    @Override
    public List<String> logs(String prefix, int limit) {
        return db.run("list record logs", sql -> sql.list("SELECT log FROM " + logs + " WHERE starts_with(log, ?) "
                + "GROUP BY log ORDER BY max(seq) DESC LIMIT ?", row -> row.getString("log"), prefix, Math.max(0, limit)));
    }

    @Override
    public void put(String key, String data) {
        db.run("keep record " + key, sql -> sql.update("INSERT INTO " + values + " (key, data, updated_at) VALUES (?, ?, ?) "
                + "ON CONFLICT (key) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at", key, data,
                at(clock.instant())));
    }

    @Override
    public boolean replace(String key, String expected, String data) {
        return db.run("replace record " + key, sql -> sql.update("UPDATE " + values + " SET data = ?, updated_at = ? "
                + "WHERE key = ? AND data = ?", data, at(clock.instant()), key, expected)) > 0;
    }

    @Override
    public Optional<String> get(String key) {
        return db.run("read record " + key, sql -> sql.one("SELECT data FROM " + values + " WHERE key = ?",
                row -> row.getString("data"), key));
    }

    @Override
    public boolean remove(String key) {
        return db.run("remove record " + key, sql -> sql.update("DELETE FROM " + values + " WHERE key = ?", key)) > 0;
    }

    @Override
    public Map<String, String> values(String prefix) {
        Map<String, String> found = new LinkedHashMap<>();
        db.run("read records", sql -> sql.list("SELECT key, data FROM " + values + " WHERE starts_with(key, ?) "
                + "ORDER BY key", row -> Map.entry(row.getString("key"), row.getString("data")), prefix))
                .forEach(e -> found.put(e.getKey(), e.getValue()));
        return java.util.Collections.unmodifiableMap(found);
    }
}
