package dev.efferent.queue.postgres;

import dev.efferent.queue.TaskQueue;
import dev.efferent.plugin.Settings;
import dev.efferent.queue.spi.TaskQueueProvider;

import java.time.Clock;

/** Provides the PostgreSQL queue as {@code "postgres"}. */
public final class PostgresQueueProvider implements TaskQueueProvider {

    /** For {@link java.util.ServiceLoader}. */
    public PostgresQueueProvider() {
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public TaskQueue open(Settings settings, Clock clock) {
        return PostgresTaskQueue.open(PgSettings.from(settings), clock);
    }
}
