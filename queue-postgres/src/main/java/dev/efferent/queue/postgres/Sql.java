package dev.efferent.queue.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Statements on one of the pool's connections, in plain JDBC. The queue's statements went through Helidon's
 * {@code DbExecute} before: its row mapping (a {@code Class.forName} per column per row, a mapper lookup per value) was
 * an eighth of the brain's CPU at 64 callers (decision 31). Parameters are bound by their Java type, null as a
 * value of unknown type, as Helidon bound them: the same types keep the server's prepared statements and plans.
 */
final class Sql {
    /** Reads the current row of a result. */
    @FunctionalInterface
    interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private final Connection connection;

    Sql(Connection connection) {
        this.connection = connection;
    }

    /** Every row {@code statement} returns, read by {@code row}. */
    <T> List<T> list(String statement, Row<T> row, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(statement, params); ResultSet rs = ps.executeQuery()) {
            List<T> all = new ArrayList<>();
            while (rs.next()) {
                all.add(row.read(rs));
            }
            return all;
        }
    }

    /** The first row {@code statement} returns, if any. */
    <T> Optional<T> one(String statement, Row<T> row, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(statement, params); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(row.read(rs)) : Optional.empty();
        }
    }

    /** Runs a statement that returns no rows; how many rows it changed. */
    int update(String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(statement, params)) {
            return ps.executeUpdate();
        }
    }

    private PreparedStatement prepare(String statement, Object[] params) throws SQLException {
        PreparedStatement ps = connection.prepareStatement(statement);
        try {
            for (int i = 0; i < params.length; i++) {
                bind(ps, i + 1, params[i]);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            try {
                ps.close();
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    private static void bind(PreparedStatement ps, int index, Object value) throws SQLException {
        switch (value) {
            case null -> ps.setNull(index, Types.NULL);
            case String s -> ps.setString(index, s);
            case Integer i -> ps.setInt(index, i);
            case Long l -> ps.setLong(index, l);
            case OffsetDateTime at -> ps.setObject(index, at);
            default -> throw new IllegalArgumentException("no binding for a parameter of type "
                    + value.getClass().getName());
        }
    }
}
