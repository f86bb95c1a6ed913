package io.distlock.postgresql;

import io.distlock.testing.servers.PostgresServer;
import io.distlock.testing.servers.SqlScript;
import java.util.ArrayList;
import java.util.List;

/**
 * The documented least-privilege setup: an administrator creates the table and the sequence with the
 * shipped {@code io/distlock/postgresql/schema.sql}, and the lock role gets exactly
 *
 * <pre>
 * GRANT CONNECT ON DATABASE app TO distlock_app;
 * GRANT USAGE ON SCHEMA public TO distlock_app;
 * GRANT SELECT, INSERT, UPDATE ON distlock_locks TO distlock_app;
 * GRANT USAGE, UPDATE ON SEQUENCE distlock_locks_token TO distlock_app;
 * </pre>
 *
 * (no CREATE, no DELETE, no ownership, nothing on other tables).
 */
final class LeastPrivilegeRole {
    static final String ROLE = "distlock_app";
    static final String PASSWORD = "app-pw-7:@%&x";

    private LeastPrivilegeRole() {}

    /** The shipped DDL with {@code options}' table names, one statement per element. */
    static List<String> schemaSql(PostgresLockOptions options) {
        return SqlScript.statements("/io/distlock/postgresql/schema.sql", "distlock_locks", options.table());
    }

    /** The GRANTs of the README for {@code role} on {@code options}' objects in {@code database}. */
    static List<String> grants(String database, PostgresLockOptions options, String role) {
        return List.of(
                "GRANT CONNECT ON DATABASE " + database + " TO " + role,
                "GRANT USAGE ON SCHEMA public TO " + role,
                "GRANT SELECT, INSERT, UPDATE ON " + options.table() + " TO " + role,
                "GRANT USAGE, UPDATE ON SEQUENCE " + options.tokenSequence() + " TO " + role);
    }

    /** Creates the objects as the superuser and the role {@link #ROLE} with only the documented grants. */
    static void create(PostgresServer db, PostgresLockOptions options) {
        List<String> sql = new ArrayList<>(schemaSql(options));
        sql.add("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + ROLE + "') THEN CREATE ROLE "
                + ROLE + " LOGIN PASSWORD '" + PASSWORD + "'; END IF; END $$");
        sql.addAll(grants(db.database(), options, ROLE));
        db.executeAsSuperuser(sql.toArray(new String[0]));
    }
}
