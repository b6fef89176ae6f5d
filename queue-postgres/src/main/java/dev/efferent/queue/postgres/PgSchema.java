package dev.efferent.queue.postgres;

import dev.efferent.queue.QueueException;

import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * The queue's tables, created and migrated at start-up. Each migration is applied once and recorded in
 * {@code <schema>.schema_migrations}; a transaction-scoped advisory lock makes two brains starting at once take
 * turns. A database migrated by a newer Efferent is refused rather than misread.
 */
final class PgSchema {
    private static final System.Logger LOG = System.getLogger(PgSchema.class.getName());
    /** Arbitrary, fixed: the advisory lock key of Efferent's migrations ("EFFERENT" in ASCII, roughly). */
    static final long LOCK_KEY = 0x4546_4645_5245_4e54L;

    record Migration(int version, String description, List<String> statements) {
    }

    static List<Migration> migrations(String s) {
        return List.of(new Migration(1, "tasks table and its indexes", List.of(
                """
                CREATE TABLE %1$s.tasks (
                    id               text PRIMARY KEY,
                    seq              bigint GENERATED ALWAYS AS IDENTITY,
                    tool             text NOT NULL,
                    params           text NOT NULL,
                    priority         smallint NOT NULL CHECK (priority BETWEEN 1 AND 10),
                    status           text NOT NULL CHECK (status IN
                                         ('QUEUED', 'CLAIMED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
                    attempt          integer NOT NULL,
                    max_attempts     integer NOT NULL,
                    run_at           timestamptz NOT NULL,
                    timeout_ms       bigint NOT NULL,
                    target_worker    text,
                    requester        text,
                    idempotency_key  text,
                    lease_owner      text,
                    lease_expires_at timestamptz,
                    result           text,
                    error            text,
                    created_at       timestamptz NOT NULL,
                    updated_at       timestamptz NOT NULL,
                    finished_at      timestamptz
                )""".formatted(s),
                // The claim walks this index: equality on status and tool, then priority and run-at in order.
                "CREATE INDEX tasks_claim_idx ON %1$s.tasks (status, tool, priority DESC, run_at, seq)".formatted(s),
                "CREATE UNIQUE INDEX tasks_idempotency_idx ON %1$s.tasks (idempotency_key) WHERE idempotency_key IS NOT NULL"
                        .formatted(s),
                "CREATE INDEX tasks_lease_idx ON %1$s.tasks (lease_expires_at) WHERE status IN ('CLAIMED', 'RUNNING')"
                        .formatted(s),
                "CREATE INDEX tasks_list_idx ON %1$s.tasks (status, created_at, seq)".formatted(s),
                "CREATE INDEX tasks_finished_idx ON %1$s.tasks (finished_at) WHERE finished_at IS NOT NULL".formatted(s),
                "CREATE INDEX tasks_owner_idx ON %1$s.tasks (lease_owner) WHERE status = 'RUNNING'".formatted(s))),
                new Migration(2, "task progress; record logs", List.of(
                        "ALTER TABLE %1$s.tasks ADD COLUMN progress_percent smallint, ADD COLUMN progress_message text, "
                                .formatted(s) + "ADD COLUMN progress_at timestamptz",
                        """
                        CREATE TABLE %1$s.record_logs (
                            seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                            log        text NOT NULL,
                            data       text NOT NULL,
                            created_at timestamptz NOT NULL
                        )""".formatted(s),
                        "CREATE INDEX record_logs_log_idx ON %1$s.record_logs (log, seq)".formatted(s))),
                new Migration(3, "record values", List.of(
                        """
                        CREATE TABLE %1$s.record_values (
                            key        text PRIMARY KEY,
                            data       text NOT NULL,
                            updated_at timestamptz NOT NULL
                        )""".formatted(s))),
                new Migration(4, "tasks awaiting approval", List.of(
                        ("ALTER TABLE %1$s.tasks DROP CONSTRAINT tasks_status_check, ADD CONSTRAINT tasks_status_check "
                                + "CHECK (status IN ('AWAITING_APPROVAL', 'QUEUED', 'CLAIMED', 'RUNNING', 'COMPLETED', "
                                + "'FAILED', 'CANCELLED'))").formatted(s))),
                // Every status change is a new row version with an entry in each index whose predicate it meets
                // (status is indexed, so none is a HOT update). The claim index now holds queued tasks only, so a
                // claim, a start and a completion no longer add to it; renewing leases walks the lease index, which
                // holds only leased tasks, instead of an index of its own. 16 index entries per task become 12.
                // Built before the old one is dropped, so that reads go on while it builds (DROP INDEX would lock the
                // table for the whole build).
                new Migration(5, "smaller indexes for status changes", List.of(
                        "CREATE INDEX tasks_claim_queued_idx ON %1$s.tasks (tool, priority DESC, run_at, seq) "
                                .formatted(s) + "WHERE status = 'QUEUED'",
                        "DROP INDEX %1$s.tasks_claim_idx".formatted(s),
                        "ALTER INDEX %1$s.tasks_claim_queued_idx RENAME TO tasks_claim_idx".formatted(s),
                        "DROP INDEX %1$s.tasks_owner_idx".formatted(s))),
                // A task's session (the browser's pages, its caller's machine) apart from who asked for it. Both
                // change only the catalogue: no row is rewritten.
                new Migration(6, "a task's session apart from its origin", List.of(
                        "ALTER TABLE %1$s.tasks RENAME COLUMN requester TO session".formatted(s),
                        "ALTER TABLE %1$s.tasks ADD COLUMN origin text".formatted(s))));
    }

    /** The oldest PostgreSQL the queue's statements run on (12: {@code MATERIALIZED} common table expressions). */
    static final int MIN_VERSION_NUM = 120000;

    /** How long a start waits for a lock: another brain's migration, or a table busy with long transactions. */
    static final Duration LOCK_WAIT = Duration.ofMinutes(5);
    /** How long one statement of a migration may take (an index built over a large table): bounded, not the pool's. */
    private static final Duration STATEMENT_WAIT = Duration.ofMinutes(30);

    /**
     * Brings {@code schema} up to date; returns its version. Runs on a connection of its own with a longer socket
     * timeout than the pool's: building an index over a large table may take longer than any statement of the queue's.
     */
    static int migrate(PgSettings settings) {
        String schema = settings.schema();
        List<Migration> migrations = migrations(schema);
        int latest = migrations.getLast().version();
        try (Connection c = PgDatabase.dedicated(settings, "efferent-migrate", STATEMENT_WAIT)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::integer, "
                        + "current_setting('server_version')")) {
                    rs.next();
                    if (rs.getInt(1) < MIN_VERSION_NUM) {
                        // Said at start-up, not at the first batch of results (MATERIALIZED, decision 30).
                        throw new QueueException("the PostgreSQL server at " + settings.url() + " is version "
                                + rs.getString(2) + "; the queue needs PostgreSQL 12 or newer: upgrade it, or point "
                                + "queue.postgres.url (EFFERENT_DB_URL) at a newer server");
                    }
                }
                s.execute("SET LOCAL lock_timeout = '" + LOCK_WAIT.toSeconds() + "s'");
                boolean free;
                try (ResultSet rs = s.executeQuery("SELECT pg_try_advisory_xact_lock(" + LOCK_KEY + ")")) {
                    rs.next();
                    free = rs.getBoolean(1);
                }
                if (!free) {
                    LOG.log(Level.INFO, "Waiting for another brain to finish migrating queue schema {0}", schema);
                    s.execute("SELECT pg_advisory_xact_lock(" + LOCK_KEY + ")");
                }
                s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
                s.execute("CREATE TABLE IF NOT EXISTS " + schema + ".schema_migrations (version integer PRIMARY KEY, "
                        + "description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
                int version;
                try (ResultSet rs = s.executeQuery("SELECT coalesce(max(version), 0) FROM " + schema
                        + ".schema_migrations")) {
                    rs.next();
                    version = rs.getInt(1);
                }
                if (version > latest) {
                    throw new QueueException("the database schema '" + schema + "' is at version " + version
                            + ", newer than this Efferent understands (" + latest + "); upgrade Efferent, or point "
                            + "queue.postgres.schema at another schema");
                }
                for (Migration m : migrations) {
                    if (m.version() > version) {
                        LOG.log(Level.INFO, "Migrating queue schema {0} to version {1}: {2}", schema, m.version(),
                                m.description());
                        for (String statement : m.statements()) {
                            s.execute(statement);
                        }
                        try (PreparedStatement record = c.prepareStatement("INSERT INTO " + schema
                                + ".schema_migrations (version, description) VALUES (?, ?)")) {
                            record.setInt(1, m.version());
                            record.setString(2, m.description());
                            record.executeUpdate();
                        }
                    }
                }
                c.commit();
                return latest;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            }
        } catch (QueueException e) {
            throw e;
        } catch (SQLException e) {
            String why = "55P03".equals(e.getSQLState()) ? "a lock was not free within " + LOCK_WAIT.toMinutes()
                    + " minutes (another brain migrating it, or long transactions on its tables); see pg_stat_activity"
                    : PgDatabase.rootMessage(e);
            throw new QueueException("could not create or migrate the queue schema '" + schema + "': " + why, e);
        } catch (RuntimeException e) {
            throw new QueueException("could not create or migrate the queue schema '" + schema + "': "
                    + PgDatabase.rootMessage(e), e);
        }
    }

    private PgSchema() {
    }
}
