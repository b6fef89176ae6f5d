/**
 * The durable task queue, named {@code postgres}: tasks survive brain restarts and crashes, and several
 * brains can share one database.
 *
 * @provides dev.efferent.queue.spi.TaskQueueProvider
 */
module efferent.queue.postgres {
    requires efferent.queue.spi;
    requires io.helidon.config;
    requires io.helidon.dbclient;
    requires java.logging;
    requires java.sql;
    requires org.postgresql.jdbc;

    // pgjdbc instantiates the listening connection's socket factory by its name.
    exports dev.efferent.queue.postgres.socket to org.postgresql.jdbc;

    provides dev.efferent.queue.spi.TaskQueueProvider
            with dev.efferent.queue.postgres.PostgresQueueProvider;
}
