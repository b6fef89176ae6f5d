package dev.efferent.queue.postgres;

import dev.efferent.queue.Records;

import java.time.Clock;
import java.util.List;

import static dev.efferent.queue.postgres.TaskRows.at;

/** Record logs in {@code <schema>.record_logs}, beside the tasks. */
final class PgRecords implements Records {
    private final PgDatabase db;
    private final String table;
    private final Clock clock;

    PgRecords(PgDatabase db, String table, Clock clock) {
        this.db = db;
        this.table = table;
        this.clock = clock;
    }

    @Override
    public void append(String log, String data, int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("a record log keeps at least 1 entry, got " + keep);
        }
        db.run("append to record log " + log, ex -> {
            ex.insert("INSERT INTO " + table + " (log, data, created_at) VALUES (?, ?, ?)", log, data,
                    at(clock.instant()));
            // Both walk (log, seq): the newest entry past the ones kept, and everything older than it.
            return ex.delete("DELETE FROM " + table + " WHERE log = ? AND seq <= (SELECT seq FROM " + table
                    + " WHERE log = ? ORDER BY seq DESC OFFSET ? LIMIT 1)", log, log, keep);
        });
    }

    @Override
    public List<String> tail(String log, int limit) {
        return db.run("read record log " + log, ex -> ex.query("SELECT data FROM (SELECT seq, data FROM " + table
                        + " WHERE log = ? ORDER BY seq DESC LIMIT ?) x ORDER BY seq", log, Math.max(0, limit))
                .map(row -> row.column("data").get(String.class)).toList());
    }
}
