/**
 * The store named {@code memory}: thread-safe, and gone when the process ends. Beside the memory queue.
 *
 * @provides dev.efferent.store.spi.StoreProvider
 */
module efferent.store.memory {
    requires efferent.store.spi;

    provides dev.efferent.store.spi.StoreProvider
            with dev.efferent.store.memory.MemoryStoreProvider;
}
