package dev.efferent.store.memory;

import dev.efferent.plugin.Settings;
import dev.efferent.store.Store;
import dev.efferent.store.spi.StoreProvider;
import dev.efferent.store.spi.TypedStore;

import java.time.Clock;

/** Provides the in-memory store as {@code "memory"}. */
public final class MemoryStoreProvider implements StoreProvider {

    /** For {@link java.util.ServiceLoader}. */
    public MemoryStoreProvider() {
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public Store open(Settings settings, Clock clock) {
        return TypedStore.over(new MemoryTextStore());
    }
}
