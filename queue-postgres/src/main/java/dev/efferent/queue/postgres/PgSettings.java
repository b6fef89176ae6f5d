package dev.efferent.queue.postgres;

import dev.efferent.queue.QueueException;
import dev.efferent.plugin.Settings;
import dev.efferent.queue.spi.RetryBackoff;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The PostgreSQL queue's settings, from {@code queue.postgres.*} (with {@code db.*} as the fallback for the
 * connection: {@code EFFERENT_DB_URL}, {@code EFFERENT_DB_USER}, {@code EFFERENT_DB_PASSWORD}).
 *
 * @param url            JDBC URL, default {@code jdbc:postgresql://127.0.0.1:5432/efferent}
 * @param user           user name, default {@code postgres}
 * @param password       password, default empty
 * @param schema         the schema the queue's tables live in, default {@code efferent}
 * @param poolSize       connections in the pool, default 10
 * @param connectTimeout how long a call waits for a connection before failing, default 2s
 * @param queryTimeout   how long a statement may take before failing, default 10s
 * @param backoff        retry delays
 */
record PgSettings(String url, String user, String password, String schema, int poolSize, Duration connectTimeout,
                  Duration queryTimeout, RetryBackoff backoff) {
    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    PgSettings {
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new QueueException("queue.postgres.url (EFFERENT_DB_URL) must be a PostgreSQL JDBC URL such as "
                    + "jdbc:postgresql://127.0.0.1:5432/efferent, got '" + url + "'");
        }
        if (!SCHEMA.matcher(schema).matches()) {
            throw new QueueException("queue.postgres.schema must be a lower-case SQL identifier "
                    + "(letters, digits, underscores), got '" + schema + "'");
        }
        if (poolSize < 1) {
            throw new QueueException("queue.postgres.pool-size must be at least 1, got " + poolSize);
        }
    }

    static PgSettings from(Settings s) {
        return new PgSettings(
                s.get("url").orElse("jdbc:postgresql://127.0.0.1:5432/efferent"),
                s.get("user").orElse("postgres"),
                s.get("password").orElse(""),
                s.get("schema").orElse("efferent"),
                s.getInt("pool-size", 10),
                s.getDuration("connect-timeout", Duration.ofSeconds(2)),
                s.getDuration("query-timeout", Duration.ofSeconds(10)),
                RetryBackoff.from(s));
    }

    /** The LISTEN/NOTIFY channel of this schema's queue. */
    String channel() {
        return "efferent_" + schema;
    }
}
