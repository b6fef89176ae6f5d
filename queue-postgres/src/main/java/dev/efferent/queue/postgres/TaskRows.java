package dev.efferent.queue.postgres;

import dev.efferent.queue.Progress;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/** Rows of {@code tasks} as {@link Task}s, and instants as SQL parameters. */
final class TaskRows {
    private TaskRows() {
    }

    static Task task(ResultSet row) throws SQLException {
        String status = row.getString("status");
        return new Task(
                row.getString("id"),
                row.getString("tool"),
                row.getString("params"),
                row.getInt("priority"),
                TaskStatus.valueOf(status),
                row.getInt("attempt"),
                row.getInt("max_attempts"),
                instant(row, "run_at"),
                Duration.ofMillis(row.getLong("timeout_ms")),
                optionalText(row, "target_worker"),
                optionalText(row, "session"),
                optionalText(row, "origin"),
                optionalText(row, "idempotency_key"),
                optionalText(row, "lease_owner"),
                optionalInstant(row, "lease_expires_at"),
                optionalText(row, "result"),
                optionalText(row, "error"),
                instant(row, "created_at"),
                instant(row, "updated_at"),
                optionalInstant(row, "finished_at"),
                progress(row, status));
    }

    /** Progress is cleared when an attempt starts, and shown only while it runs. */
    private static Optional<Progress> progress(ResultSet row, String status) throws SQLException {
        int percent = row.getInt("progress_percent");
        if (row.wasNull() || !"RUNNING".equals(status)) {
            return Optional.empty();
        }
        return Optional.of(new Progress(percent, optionalText(row, "progress_message").orElse(""),
                optionalInstant(row, "progress_at").orElseThrow()));
    }

    static long seq(ResultSet row) throws SQLException {
        return row.getLong("seq");
    }

    /** {@code instant} to the nearest microsecond: the precision PostgreSQL keeps, so a value sent is the value stored. */
    static Instant micros(Instant instant) {
        return instant.plusNanos(500).truncatedTo(ChronoUnit.MICROS);
    }

    /** An instant as a {@code timestamptz} parameter. */
    static OffsetDateTime at(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    private static Optional<String> optionalText(ResultSet row, String column) throws SQLException {
        return Optional.ofNullable(row.getString(column));
    }

    private static Instant instant(ResultSet row, String column) throws SQLException {
        return optionalInstant(row, column).orElseThrow(() -> new IllegalStateException("column " + column
                + " of a task is empty"));
    }

    private static Optional<Instant> optionalInstant(ResultSet row, String column) throws SQLException {
        return Optional.ofNullable(row.getObject(column, OffsetDateTime.class)).map(OffsetDateTime::toInstant);
    }
}
