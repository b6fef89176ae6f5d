package dev.efferent.store.spi;

import dev.efferent.plugin.Settings;
import dev.efferent.store.Store;

import java.time.Clock;

/** Finds store implementations. One is chosen by {@code store.provider} in the configuration. */
public interface StoreProvider {
    /** The name configuration uses to pick this provider, e.g. {@code "postgres"}. */
    String name();

    /** Opens a store. Never null; fails with {@link dev.efferent.store.StoreException} naming the bad setting. */
    Store open(Settings settings, Clock clock);
}
