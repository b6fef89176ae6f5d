/**
 * The durable store, named {@code postgres}: namespaced values and logs in PostgreSQL, by default in the queue's
 * database and schema, so that every brain over that database shares them.
 *
 * @provides dev.efferent.store.spi.StoreProvider
 */
module efferent.store.postgres {
    requires efferent.store.spi;
    requires com.zaxxer.hikari;
    requires java.sql;
    requires org.postgresql.jdbc;

    provides dev.efferent.store.spi.StoreProvider
            with dev.efferent.store.postgres.PostgresStoreProvider;
}
