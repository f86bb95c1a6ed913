package io.distlock.mysql;

import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.SqlScript;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The documented least-privilege setup: an administrator creates the tables with the shipped
 * {@code io/distlock/mysql/schema.sql}, and the lock user gets exactly
 *
 * <pre>
 * GRANT SELECT, INSERT, UPDATE ON db.distlock_locks       TO 'distlock_app'@'%';
 * GRANT SELECT, INSERT, UPDATE ON db.distlock_locks_token TO 'distlock_app'@'%';
 * </pre>
 *
 * (no CREATE, no DELETE, nothing on other tables).
 */
final class LeastPrivilegeUser {
    static final String USER = "distlock_app";
    static final String PASSWORD = "app-pw-7:@%&x";

    private LeastPrivilegeUser() {}

    /** The shipped DDL with {@code options}' table names, one statement per element. */
    static List<String> schemaSql(MySqlLockOptions options) {
        return SqlScript.statements("/io/distlock/mysql/schema.sql", "distlock_locks", options.table());
    }

    /** The GRANTs of the README for {@code user} on {@code options}' tables in {@code database}. */
    static List<String> grants(String database, MySqlLockOptions options, String user) {
        return List.of(
                "GRANT SELECT, INSERT, UPDATE ON " + database + "." + options.table() + " TO '" + user + "'@'%'",
                "GRANT SELECT, INSERT, UPDATE ON " + database + "." + options.tokenTable() + " TO '" + user + "'@'%'");
    }

    /** Creates the tables as root and the user {@link #USER} with only the documented grants. */
    static void create(MariaDbServer db, MySqlLockOptions options, boolean requireSsl) {
        List<String> sql = new ArrayList<>();
        sql.add("USE " + db.database());
        sql.addAll(schemaSql(options));
        sql.add("CREATE USER IF NOT EXISTS '" + USER + "'@'%' IDENTIFIED BY '" + PASSWORD + "'"
                + (requireSsl ? " REQUIRE SSL" : ""));
        sql.addAll(grants(db.database(), options, USER));
        try {
            db.executeAsRoot(sql.toArray(new String[0]));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot set up the least-privilege user: " + e.getMessage(), e);
        }
    }
}
