package dev.efferent.queue.spi;

import dev.efferent.plugin.Settings;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.TaskQueue;

import java.time.Clock;

/**
 * Finds queue implementations. One is chosen by {@code queue.provider} in the configuration. Declare it with
 * {@code provides dev.efferent.queue.spi.TaskQueueProvider with ...}; keep the constructor free of work.
 */
public interface TaskQueueProvider {

    /** The name configuration uses to pick this provider, e.g. {@code "postgres"}. */
    String name();

    /**
     * Opens a queue.
     *
     * @param settings the provider's settings, {@code queue.<name>.*} in the configuration
     * @param clock    the time every run-at, lease and cleanup is measured by
     * @return the queue, never null
     * @throws QueueException naming the bad setting
     */
    TaskQueue open(Settings settings, Clock clock);
}
