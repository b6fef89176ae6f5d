/**
 * The embedded default task queue, named {@code memory}: fast, thread-safe, and gone when the process ends.
 *
 * @provides dev.efferent.queue.spi.TaskQueueProvider
 */
module efferent.queue.memory {
    requires efferent.queue.spi;

    provides dev.efferent.queue.spi.TaskQueueProvider
            with dev.efferent.queue.memory.MemoryQueueProvider;
}
