package dev.efferent.queue.postgres;

import dev.efferent.plugin.Settings;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * The PostgreSQL the tests use: {@code EFFERENT_TEST_DB_URL} (default {@code jdbc:postgresql://127.0.0.1:5432/test}),
 * {@code EFFERENT_TEST_DB_USER} (default {@code postgres}), {@code EFFERENT_TEST_DB_PASSWORD} (default empty).
 * Each run works in a schema of its own, dropped afterwards. A server that cannot be reached fails the tests.
 */
final class TestDatabase implements AutoCloseable {
    static final String URL = env("EFFERENT_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/test");
    static final String USER = env("EFFERENT_TEST_DB_USER", "postgres");
    static final String PASSWORD = env("EFFERENT_TEST_DB_PASSWORD", "");

    final String schema = "efferent_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    Settings settings(Map<String, String> extra) {
        Map<String, String> values = new HashMap<>(Map.of("url", URL, "user", USER, "password", PASSWORD,
                "schema", schema));
        values.putAll(extra);
        return key -> Optional.ofNullable(values.get(key));
    }

    void execute(String sql) {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new AssertionError("cannot run '" + sql + "' on the test PostgreSQL at " + URL + " as " + USER
                    + ": " + e.getMessage() + ". Start PostgreSQL (.ci/run does) or point EFFERENT_TEST_DB_URL at one.", e);
        }
    }

    static Connection connect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", USER);
        props.setProperty("password", PASSWORD);
        return DriverManager.getConnection(URL, props);
    }

    @Override
    public void close() {
        execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    private static String env(String name, String defaultValue) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? defaultValue : value;
    }
}
