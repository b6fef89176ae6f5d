package dev.efferent.queue.memory;

import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.spi.QueueSettings;
import dev.efferent.queue.spi.TaskQueueProvider;

import java.time.Clock;
import java.time.Duration;

/** Provides the in-memory queue as {@code "memory"}. */
public final class MemoryQueueProvider implements TaskQueueProvider {

    /** For {@link java.util.ServiceLoader}. */
    public MemoryQueueProvider() {
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public TaskQueue open(QueueSettings settings, Clock clock) {
        Duration backoff = settings.getDuration("retry-backoff", Duration.ofSeconds(1));
        Duration maxBackoff = settings.getDuration("retry-backoff-max", Duration.ofMinutes(5));
        return new MemoryTaskQueue(clock, new Backoff(backoff, maxBackoff));
    }
}
