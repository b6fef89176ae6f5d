/**
 * Typed durable state beside the task queue: the API its users call ({@link dev.efferent.store.Store}, claimed
 * {@link dev.efferent.store.Namespace}s) and the SPI its providers implement
 * ({@link dev.efferent.store.spi.StoreProvider}). JDK only.
 */
module efferent.store.spi {
    requires transitive efferent.plugin.api;

    exports dev.efferent.store;
    exports dev.efferent.store.spi;
}
