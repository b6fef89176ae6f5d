package dev.efferent.queue.postgres;

import dev.efferent.queue.Progress;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import io.helidon.dbclient.DbRow;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/** Rows of {@code tasks} as {@link Task}s, and instants as SQL parameters. */
final class TaskRows {
    private TaskRows() {
    }

    static Task task(DbRow row) {
        return new Task(
                text(row, "id"),
                text(row, "tool"),
                text(row, "params"),
                row.column("priority").get(Number.class).intValue(),
                TaskStatus.valueOf(text(row, "status")),
                row.column("attempt").get(Number.class).intValue(),
                row.column("max_attempts").get(Number.class).intValue(),
                instant(row, "run_at"),
                Duration.ofMillis(row.column("timeout_ms").get(Number.class).longValue()),
                optionalText(row, "target_worker"),
                optionalText(row, "requester"),
                optionalText(row, "idempotency_key"),
                optionalText(row, "lease_owner"),
                optionalInstant(row, "lease_expires_at"),
                optionalText(row, "result"),
                optionalText(row, "error"),
                instant(row, "created_at"),
                instant(row, "updated_at"),
                optionalInstant(row, "finished_at"),
                progress(row));
    }

    /** Progress is cleared when an attempt starts, and shown only while it runs. */
    private static Optional<Progress> progress(DbRow row) {
        Number percent = row.column("progress_percent").get(Number.class);
        if (percent == null || !"RUNNING".equals(text(row, "status"))) {
            return Optional.empty();
        }
        return Optional.of(new Progress(percent.intValue(), optionalText(row, "progress_message").orElse(""),
                optionalInstant(row, "progress_at").orElseThrow()));
    }

    static long seq(DbRow row) {
        return row.column("seq").get(Number.class).longValue();
    }

    /** An instant as a {@code timestamptz} parameter. */
    static OffsetDateTime at(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    private static String text(DbRow row, String column) {
        return row.column(column).get(String.class);
    }

    private static Optional<String> optionalText(DbRow row, String column) {
        return Optional.ofNullable(row.column(column).get(String.class));
    }

    private static Instant instant(DbRow row, String column) {
        return optionalInstant(row, column).orElseThrow();
    }

    private static Optional<Instant> optionalInstant(DbRow row, String column) {
        Object value = row.column(column).get(Object.class);
        return switch (value) {
            case null -> Optional.empty();
            case Timestamp t -> Optional.of(t.toInstant());
            case OffsetDateTime o -> Optional.of(o.toInstant());
            default -> throw new IllegalStateException("column " + column + " holds a " + value.getClass().getName());
        };
    }
}
