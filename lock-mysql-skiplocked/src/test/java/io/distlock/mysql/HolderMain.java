package io.distlock.mysql;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.fencing.StaleTokenException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;

/**
 * A lock holder run in a child JVM by {@link ChildJvmFaultIT}: acquires a lock, prints {@code HELD
 * <token> <connectionId>}, then answers {@code write} (a write guarded by its token) and {@code valid}
 * on stdin. Arguments: jdbcUrl user lockName leaseMillis; the password comes in the environment
 * variable {@code DISTLOCK_TEST_PASSWORD} (never on the command line).
 */
public final class HolderMain {
    private HolderMain() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String name = args[2];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        String password = System.getenv("DISTLOCK_TEST_PASSWORD");
        JdbcFencingGuard guard = JdbcFencingGuard.create();
        try (MySqlLockProvider p = MySqlLockProvider.builder()
                .jdbcUrl(url)
                .user(user)
                .password(password)
                .options(MySqlLockOptions.builder()
                        .createSchema(true)
                        .poolSize(2)
                        .lockOptions(LockOptions.builder().leaseTime(lease).build())
                        .build())
                .build()) {
            Lease l = p.lock(name).acquire();
            long token = l.fencingToken().getAsLong();
            System.out.println("HELD " + token + " " + p.connectionId(l));
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                switch (line.trim()) {
                    case "write":
                        try (Connection c = DriverManager.getConnection(url, user, password)) {
                            c.setAutoCommit(false);
                            guard.check(c, name, token);
                            c.commit();
                            System.out.println("WRITE OK");
                        } catch (StaleTokenException e) {
                            System.out.println("WRITE STALE");
                        } catch (Exception e) {
                            System.out.println("WRITE ERROR " + e);
                        }
                        break;
                    case "valid":
                        System.out.println("VALID " + l.isValid());
                        break;
                    default:
                        return;
                }
                System.out.flush();
            }
        }
    }
}
