package dev.efferent.store.postgres;

import dev.efferent.plugin.Settings;
import dev.efferent.store.StoreException;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The PostgreSQL store's settings. The brain reads them from {@code store.postgres.*}, else from the queue's
 * {@code queue.postgres.*}, with {@code db.*} ({@code EFFERENT_DB_URL}, ...) as the fallback: by default the store
 * lives in the queue's database and schema.
 *
 * @param url            JDBC URL, default {@code jdbc:postgresql://127.0.0.1:5432/efferent}
 * @param user           user name, default {@code postgres}
 * @param password       password, default empty
 * @param schema         the schema the store's tables live in, default {@code efferent}
 * @param poolSize       connections in the store's pool, default 4 (the queue has a pool of its own)
 * @param connectTimeout how long a call waits for a connection before failing, default 2s
 * @param queryTimeout   how long a statement may take before failing, default 10s
 */
record PgStoreSettings(String url, String user, String password, String schema, int poolSize, Duration connectTimeout,
                       Duration queryTimeout) {
    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    PgStoreSettings {
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new StoreException("store.postgres.url (EFFERENT_DB_URL) must be a PostgreSQL JDBC URL such as "
                    + "jdbc:postgresql://127.0.0.1:5432/efferent, got '" + url + "'");
        }
        if (!SCHEMA.matcher(schema).matches()) {
            throw new StoreException("store.postgres.schema must be a lower-case SQL identifier "
                    + "(letters, digits, underscores), got '" + schema + "'");
        }
        if (poolSize < 1) {
            throw new StoreException("store.postgres.store-pool-size must be at least 1, got " + poolSize);
        }
    }

    static PgStoreSettings from(Settings s) {
        return new PgStoreSettings(
                s.get("url").orElse("jdbc:postgresql://127.0.0.1:5432/efferent"),
                s.get("user").orElse("postgres"),
                s.get("password").orElse(""),
                s.get("schema").orElse("efferent"),
                // Not "pool-size": the store reads the queue's node by default, and the queue's pool is larger.
                s.getInt("store-pool-size", 4),
                s.getDuration("connect-timeout", Duration.ofSeconds(2)),
                s.getDuration("query-timeout", Duration.ofSeconds(10)));
    }
}
