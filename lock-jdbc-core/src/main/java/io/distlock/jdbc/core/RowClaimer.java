package io.distlock.jdbc.core;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/** Builds and runs the {@code FOR UPDATE SKIP LOCKED} claim of a caller's rows. */
public final class RowClaimer {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

    private final String sql;
    private final String sqlAfter;
    private final List<Object> values;

    /**
     * @throws IllegalArgumentException naming the argument if an identifier does not match {@code
     *     [A-Za-z_][A-Za-z0-9_]{0,63}} or the limit is out of range
     */
    public RowClaimer(String table, String keyColumn, Map<String, ?> where, int limit) {
        this(table, keyColumn, where, limit, null);
    }

    /**
     * @param index an index to name in {@code FORCE INDEX} (MySQL's index hint; PostgreSQL has none),
     *     or null for the optimizer's choice
     * @throws IllegalArgumentException naming the argument if an identifier does not match {@code
     *     [A-Za-z_][A-Za-z0-9_]{0,63}} or the limit is out of range
     */
    public RowClaimer(String table, String keyColumn, Map<String, ?> where, int limit, String index) {
        checkIdentifier("table", table);
        checkIdentifier("keyColumn", keyColumn);
        if (index != null) {
            checkIdentifier("index", index);
        }
        Objects.requireNonNull(where, "where must not be null");
        if (limit < 1 || limit > 100_000) {
            throw new IllegalArgumentException("limit must be between 1 and 100000 (was " + limit + ")");
        }
        StringBuilder sb =
                new StringBuilder("SELECT ").append(keyColumn).append(" FROM ").append(table);
        if (index != null) {
            sb.append(" FORCE INDEX (").append(index).append(')');
        }
        List<Object> v = new ArrayList<>();
        String sep = " WHERE ";
        for (Map.Entry<String, ?> e : where.entrySet()) {
            checkIdentifier("where column", e.getKey());
            if (e.getValue() == null) {
                sb.append(sep).append(e.getKey()).append(" IS NULL");
            } else {
                sb.append(sep).append(e.getKey()).append(" = ?");
                v.add(e.getValue());
            }
            sep = " AND ";
        }
        String tail = " ORDER BY " + keyColumn + " LIMIT " + limit + " FOR UPDATE SKIP LOCKED";
        this.sql = sb + tail;
        this.sqlAfter = sb.append(sep).append(keyColumn).append(" > ?") + tail;
        this.values = v;
    }

    private static void checkIdentifier(String what, String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must match [A-Za-z_][A-Za-z0-9_]{0,63} (was '" + name + "')");
        }
    }

    /** The statement, for tests and logs. */
    public String sql() {
        return sql;
    }

    /** The statement that claims only rows whose key is greater than a bound value, for tests and logs. */
    public String sqlAfter() {
        return sqlAfter;
    }

    /** Locks up to {@code limit} matching rows no other transaction has locked; returns their keys. */
    public List<Object> claim(Connection c) throws SQLException {
        return claim(c, null);
    }

    /**
     * Like {@link #claim(Connection)}, but only rows whose key is greater than {@code after} (bound
     * as a parameter), unless {@code after} is null.
     */
    public List<Object> claim(Connection c, Object after) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(after == null ? sql : sqlAfter)) {
            for (int i = 0; i < values.size(); i++) {
                ps.setObject(i + 1, values.get(i));
            }
            if (after != null) {
                ps.setObject(values.size() + 1, after);
            }
            List<Object> keys = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    keys.add(rs.getObject(1));
                }
            }
            return keys;
        }
    }
}
