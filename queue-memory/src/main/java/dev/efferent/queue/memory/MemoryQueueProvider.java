package dev.efferent.queue.memory;

import dev.efferent.queue.TaskQueue;
import dev.efferent.plugin.Settings;
import dev.efferent.queue.spi.RetryBackoff;
import dev.efferent.queue.spi.TaskQueueProvider;

import java.time.Clock;

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
    public TaskQueue open(Settings settings, Clock clock) {
        return new MemoryTaskQueue(clock, RetryBackoff.from(settings));
    }
}
