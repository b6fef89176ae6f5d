package dev.efferent.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The queue's claim and completion run by pgbench alone, no JVM in the way: the ceiling of the queue scenario's
 * unbatched row. Each script runs on a table the queue's own migrations made, holding as many queued tasks as that
 * row's table does when it begins (80,000), and does as many tasks as the row (16,000), 8 clients; B as the queue
 * scenario takes it, before and after, and the same without waiting for the disk.
 */
final class StatementsBench {
    private static final String NO_FLUSH = "-c synchronous_commit=off";

    private StatementsBench() {
    }

    static void run(boolean smoke) throws Exception {
        int rows = smoke ? 4000 : 80_000;
        int tasks = smoke ? 800 : 16_000;
        int seconds = smoke ? 1 : 15;
        double before = QueueBench.pgbench(false, "", seconds);
        double beforeNoFlush = QueueBench.pgbench(false, NO_FLUSH, seconds);
        String schema = "efferent_statements_" + System.nanoTime() % 100000;
        String t = schema + ".tasks";
        // PostgresTaskQueue.claimStatement(t, 1) and its complete, their parameters written in: keep them in step.
        // \gset makes a claim that finds nothing, or a completion that changes nothing, an error that ends the run.
        String claim = "WITH c AS (SELECT x.id FROM unnest((SELECT string_to_array('t'::text, ','::text))) AS u(tool) "
                + "CROSS JOIN LATERAL (SELECT id, priority, run_at, seq FROM " + t + " WHERE status = 'QUEUED' "
                + "AND tool = u.tool AND run_at <= (SELECT now()) AND (target_worker IS NULL "
                + "OR target_worker = (SELECT 'w'::text)) ORDER BY priority DESC, run_at, seq LIMIT 1 "
                + "FOR UPDATE SKIP LOCKED) x ORDER BY x.priority DESC, x.run_at, x.seq LIMIT 1) "
                + "UPDATE " + t + " SET status = 'CLAIMED', attempt = attempt + 1, lease_owner = 'w', "
                + "lease_expires_at = now() + interval '5 minutes', updated_at = now() FROM c WHERE " + t
                + ".id = c.id RETURNING " + t + ".* \\gset\n";
        String complete = "UPDATE " + t + " SET status = 'COMPLETED', result = '{}', error = NULL, "
                + "lease_expires_at = NULL, finished_at = now(), updated_at = now() WHERE id = %s AND status IN %s "
                + "RETURNING %s \\gset\n";
        String claimed = complete.formatted(":id", "('CLAIMED', 'RUNNING')", "*");
        // The completion alone: each client completes queued tasks of its own in the order they were added (the
        // statement as the queue's but for the states it accepts).
        String own = complete.formatted("substr(md5((:i * 8 + :client_id + 1)::text), 1, 16)",
                "('QUEUED', 'CLAIMED', 'RUNNING')", ":i + 1 AS i");
        Map<String, Double> rates = new LinkedHashMap<>();
        try {
            rates.put("claim-complete", row(schema, rows, tasks, claim + claimed, ""));
            rates.put("claim", row(schema, rows, tasks, claim, ""));
            rates.put("complete", row(schema, rows, tasks, own, ""));
            rates.put("claim-complete-no-flush", row(schema, rows, tasks, claim + claimed, NO_FLUSH));
        } finally {
            QueueBench.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
        double b = (before + QueueBench.pgbench(false, "", seconds)) / 2;
        double bNoFlush = (beforeNoFlush + QueueBench.pgbench(false, NO_FLUSH, seconds)) / 2;
        BenchMain.figure("statements.autovacuum", setting("autovacuum"));
        BenchMain.figure("statements.B", String.format(Locale.ROOT, "%.0f tps", b));
        BenchMain.figure("statements.B-no-flush", String.format(Locale.ROOT, "%.0f tps", bNoFlush));
        // The run without the flush against B measured the same way.
        rates.forEach((name, rate) -> BenchMain.figure("statements." + name, String.format(Locale.ROOT,
                "%.0f/s (%.2f B)", rate, rate / (name.endsWith("no-flush") ? bNoFlush : b))));
    }

    /** Tasks per second of {@code script} on a fresh table of {@code rows} queued tasks, {@code tasks} in all. */
    private static double row(String schema, int rows, int tasks, String script, String options) throws Exception {
        QueueBench.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        // The table as the queue makes it: its migrations run as it opens.
        QueueBench.open("postgres", Map.of("url", QueueBench.URL, "user", QueueBench.USER, "schema", schema,
                "pool-size", "1")).close();
        QueueBench.sql("INSERT INTO " + schema + ".tasks (id, tool, params, priority, status, attempt, max_attempts, "
                + "run_at, timeout_ms, created_at, updated_at) SELECT substr(md5(g::text), 1, 16), 't', '{}', 5, "
                + "'QUEUED', 0, 3, now(), 60000, now(), now() FROM generate_series(1, " + rows + ") g");
        QueueBench.sql("VACUUM ANALYZE " + schema + ".tasks");
        Path file = Files.createTempFile("efferent-statements", ".sql");
        try {
            Files.writeString(file, script);
            return QueueBench.tps(file, database(), options, "-t", String.valueOf(tasks / 8));
        } finally {
            Files.delete(file);
        }
    }

    /** The database of the bench's URL, where the queue's schema goes. */
    private static String database() {
        String path = QueueBench.URL.substring(QueueBench.URL.lastIndexOf('/') + 1);
        int query = path.indexOf('?');
        return query < 0 ? path : path.substring(0, query);
    }

    private static String setting(String name) throws Exception {
        return QueueBench.value("SHOW " + name);
    }
}
