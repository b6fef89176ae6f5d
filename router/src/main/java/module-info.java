/**
 * Routing of tool calls: the queue provider chosen by configuration, and (next) the worker registry,
 * dispatch, queue-when-offline and drain. Transport-agnostic.
 *
 * @uses dev.efferent.queue.spi.TaskQueueProvider
 */
module efferent.router {
    requires transitive efferent.core;
    requires transitive efferent.protocol;
    requires transitive efferent.queue.spi;

    exports dev.efferent.router;

    uses dev.efferent.queue.spi.TaskQueueProvider;
}
