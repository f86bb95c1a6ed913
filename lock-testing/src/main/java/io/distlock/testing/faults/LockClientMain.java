package io.distlock.testing.faults;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.fencing.StaleTokenException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;

/**
 * The lock client run in a child JVM by {@link ChildJvmLockClient}. No arguments: the first line on
 * stdin is a provider URI for {@link LockProviders#open(String)} (the backend must be on the class
 * path; stdin rather than the command line because the URI may carry a password, and a process's
 * command line is visible to every user). Prints {@code READY <pid>}, then obeys one command per line
 * on stdin and answers one line on stdout:
 *
 * <pre>
 * ACQUIRE name maxWaitMillis            → ACQUIRED token|none  |  NOT_ACQUIRED
 * VALID                                 → VALID true|false
 * RELEASE                               → RELEASED true|false
 * WRITE jdbcUrl user password resource  → WRITE_OK  |  WRITE_STALE lastAccepted
 * EXIT                                  → BYE (then exits)
 * </pre>
 *
 * Any failure answers {@code ERROR <message>}. WRITE checks the lease's fencing token with {@link
 * JdbcFencingGuard} and inserts a row into {@value #WRITES_TABLE} in the same transaction; it needs a
 * JDBC driver for the URL on the child's class path ({@code com.mysql:mysql-connector-j} for {@code
 * jdbc:mysql:}, optional in lock-testing). The JVM exits when stdin closes (the parent died).
 */
public final class LockClientMain {
    /** The table WRITE appends to: {@code (id, resource, token, pid)}. */
    public static final String WRITES_TABLE = "distlock_guarded_writes";

    private final PrintStream out;
    private final LockProvider provider;
    private Lease lease;

    private LockClientMain(PrintStream out, LockProvider provider) {
        this.out = out;
        this.provider = provider;
    }

    /** Entry point; see the class comment. */
    public static void main(String[] args) throws Exception {
        if (args.length != 0) {
            System.err.println("usage: LockClientMain  (then the provider URI as the first line on stdin)");
            System.exit(2);
        }
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        // keep stdout for answers only
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String uri = in.readLine();
        if (uri == null) {
            System.exit(2);
        }
        LockClientMain main = new LockClientMain(out, LockProviders.open(uri.trim()));
        out.println("READY " + ProcessHandle.current().pid());
        String line;
        while ((line = in.readLine()) != null) {
            if (!main.handle(line.trim())) {
                break;
            }
        }
        main.shutdown();
        System.exit(0);
    }

    private boolean handle(String line) {
        String[] a = line.split(" ");
        try {
            switch (a[0]) {
                case "ACQUIRE": {
                    Optional<Lease> l = provider.lock(a[1]).tryAcquire(Duration.ofMillis(Long.parseLong(a[2])));
                    if (l.isPresent()) {
                        lease = l.get();
                        out.println("ACQUIRED "
                                + (lease.fencingToken().isPresent()
                                        ? Long.toString(lease.fencingToken().getAsLong())
                                        : "none"));
                    } else {
                        out.println("NOT_ACQUIRED");
                    }
                    return true;
                }
                case "VALID":
                    out.println("VALID " + (lease != null && lease.isValid()));
                    return true;
                case "RELEASE": {
                    boolean released = lease != null && lease.release();
                    lease = null;
                    out.println("RELEASED " + released);
                    return true;
                }
                case "WRITE":
                    out.println(write(a[1], a[2], a[3], a[4]));
                    return true;
                case "EXIT":
                    out.println("BYE");
                    return false;
                default:
                    out.println("ERROR unknown command '" + a[0] + "'");
                    return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println("ERROR interrupted");
            return false;
        } catch (Exception e) {
            out.println("ERROR " + String.valueOf(e).replace('\n', ' '));
            return true;
        }
    }

    private String write(String url, String user, String password, String resource) throws SQLException {
        if (lease == null || lease.fencingToken().isEmpty()) {
            return "ERROR no lease with a fencing token";
        }
        long token = lease.fencingToken().getAsLong();
        try {
            DriverManager.getDriver(url);
        } catch (SQLException e) {
            // not DriverManager's message: it repeats the whole URL
            return "ERROR no JDBC driver for " + scheme(url) + " URLs on the child's class path"
                    + " (for jdbc:mysql: add com.mysql:mysql-connector-j, which lock-testing declares optional)";
        }
        JdbcFencingGuard guard = JdbcFencingGuard.create();
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            guard.createTableIfMissing(c);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS " + WRITES_TABLE
                        + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, resource VARCHAR(255) NOT NULL,"
                        + " token BIGINT NOT NULL, pid BIGINT NOT NULL) ENGINE=InnoDB");
            }
            c.setAutoCommit(false);
            try {
                guard.check(c, resource, token);
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + WRITES_TABLE + " (resource, token, pid) VALUES (?, ?, ?)")) {
                    ps.setString(1, resource);
                    ps.setLong(2, token);
                    ps.setLong(3, ProcessHandle.current().pid());
                    ps.executeUpdate();
                }
                c.commit();
                return "WRITE_OK";
            } catch (StaleTokenException e) {
                c.rollback();
                return "WRITE_STALE " + e.lastAccepted();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** {@code jdbc:mysql:} of {@code jdbc:mysql://host/db?...}: the URL up to its second colon. */
    static String scheme(String url) {
        int first = url.indexOf(':');
        int second = first < 0 ? -1 : url.indexOf(':', first + 1);
        return second < 0 ? "malformed" : url.substring(0, second + 1);
    }

    private void shutdown() {
        try {
            if (lease != null) {
                lease.release();
            }
        } finally {
            provider.close();
        }
    }
}
