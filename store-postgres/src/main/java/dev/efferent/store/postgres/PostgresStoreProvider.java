package dev.efferent.store.postgres;

import dev.efferent.plugin.Settings;
import dev.efferent.store.Store;
import dev.efferent.store.spi.StoreProvider;
import dev.efferent.store.spi.TypedStore;

import java.time.Clock;

/** Provides the PostgreSQL store as {@code "postgres"}. */
public final class PostgresStoreProvider implements StoreProvider {

    /** For {@link java.util.ServiceLoader}. */
    public PostgresStoreProvider() {
    }

    @Override
    public String name() {
        return "postgres";
    }

    @Override
    public Store open(Settings settings, Clock clock) {
        return TypedStore.over(PgTextStore.open(PgStoreSettings.from(settings), clock));
    }
}
