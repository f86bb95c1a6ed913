package io.distlock.compare.cli;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The tables and sequences a run creates on a SQL server (all named under the run's prefix), and
 * their removal at the end: each table's rows counted, every object dropped, then the server asked
 * for anything still named under the prefix.
 */
final class SqlRunObjects {
    private final Set<String> tables = new LinkedHashSet<>();
    private final Set<String> sequences = new LinkedHashSet<>();

    synchronized void table(String name) {
        tables.add(name);
    }

    synchronized void sequence(String name) {
        sequences.add(name);
    }

    /**
     * Drops what was recorded (objects never created are passed over) and counts what is left.
     *
     * @param c a connection allowed to drop them
     * @param where the servers, for the report
     * @param what what the objects are, for the report
     * @param leftSql a query whose rows are the objects still named under the prefix
     * @return what was dropped, with how many rows, and what is left
     */
    synchronized String dropAll(Connection c, String where, String what, String leftSql) {
        long rows = 0;
        List<String> dropped = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            for (String t : tables) {
                try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + t)) {
                    rs.next();
                    rows += rs.getLong(1);
                } catch (SQLException missing) {
                    continue; // never created (its scenario did not run)
                }
                s.execute("DROP TABLE IF EXISTS " + t);
                dropped.add(t);
            }
            for (String q : sequences) {
                s.execute("DROP SEQUENCE IF EXISTS " + q);
                dropped.add(q);
            }
            List<String> left = new ArrayList<>();
            try (ResultSet rs = s.executeQuery(leftSql)) {
                while (rs.next()) {
                    left.add(rs.getString(1));
                }
            }
            return where + ": dropped " + dropped.size() + " objects " + dropped + " with " + rows + " rows (" + what
                    + "); " + (left.isEmpty() ? "none left" : left.size() + " LEFT " + left);
        } catch (SQLException e) {
            return where + ": dropping the run's objects failed (dropped " + dropped + "): " + e;
        }
    }

    /** A SQL {@code LIKE} pattern for names starting with {@code prefix} (its underscores literal). */
    static String startingWith(String prefix) {
        return prefix.replace("_", "\\_") + "%";
    }
}
