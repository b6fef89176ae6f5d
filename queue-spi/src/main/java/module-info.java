/**
 * The task queue: the API the router calls ({@link dev.efferent.queue.TaskQueue}) and the SPI its providers
 * implement ({@link dev.efferent.queue.spi.TaskQueueProvider}). JDK only.
 */
module efferent.queue.spi {
    requires transitive efferent.plugin.api;

    exports dev.efferent.queue;
    exports dev.efferent.queue.spi;
}
