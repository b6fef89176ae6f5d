/**
 * Routing of tool calls: the queue and store providers chosen by configuration, and (next) the worker registry,
 * dispatch, queue-when-offline and drain. Transport-agnostic.
 *
 * @uses dev.efferent.queue.spi.TaskQueueProvider
 * @uses dev.efferent.store.spi.StoreProvider
 */
module efferent.router {
    requires transitive efferent.core;
    requires transitive efferent.protocol;
    requires transitive efferent.queue.spi;
    requires transitive efferent.store.spi;

    exports dev.efferent.router;

    uses dev.efferent.queue.spi.TaskQueueProvider;
    uses dev.efferent.store.spi.StoreProvider;
}
