package io.distlock.examples.transfer;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.fencing.StaleTokenException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Example 3 — a money transfer guarded by a fencing token.
 *
 * <p>The transfer is a read-modify-write: under the lock it reads both balances, computes the new
 * ones and writes them. The lock alone is not enough. A holder that pauses (a long GC, a swapped-out
 * VM) between its read and its write can outlive its lease without knowing it; another client
 * takes the lock, transfers, and then the paused holder wakes up and writes balances computed from
 * its stale read, erasing the other transfer.
 *
 * <p>The fix is on the database side: every write carries the lease's {@linkplain
 * Lease#fencingToken() fencing token}, and {@link JdbcFencingGuard} accepts it, in the same
 * transaction as the write, only if no larger token was accepted before. The stale holder's write
 * then fails with {@link StaleTokenException} and is rolled back as a whole.
 *
 * <pre>
 * java io.distlock.examples.transfer.FencedMoneyTransfer mysql://127.0.0.1:3306/bank?user=u&amp;password=p \
 *     jdbc:mysql://127.0.0.1:3306/bank user password
 * </pre>
 */
public final class FencedMoneyTransfer {
    /** The lock that serialises transfers, and the fenced resource it protects. */
    public static final String LOCK = "accounts";

    private final LockProvider locks;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final JdbcFencingGuard guard = JdbcFencingGuard.create();

    /**
     * @param locks a provider whose backend hands out fencing tokens
     * @param jdbcUrl the database that holds the accounts and the {@code distlock_fence} table
     */
    public FencedMoneyTransfer(LockProvider locks, String jdbcUrl, String user, String password) {
        this.locks = Objects.requireNonNull(locks, "locks must not be null");
        this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl must not be null");
        this.user = user;
        this.password = password;
    }

    /** Creates {@code account} and the fence table (idempotent). */
    public void createSchema() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS account ("
                    + " id VARCHAR(64) PRIMARY KEY,"
                    + " balance BIGINT NOT NULL) ENGINE=InnoDB");
            guard.createTableIfMissing(c);
        }
    }

    /** Opens {@code id} with {@code balance} (replacing an existing account). */
    public void openAccount(String id, long balance) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement("REPLACE INTO account (id, balance) VALUES (?, ?)")) {
            ps.setString(1, id);
            ps.setLong(2, balance);
            ps.executeUpdate();
        }
    }

    /** The balance of {@code id}. */
    public long balance(String id) throws SQLException {
        try (Connection c = connect()) {
            return balance(c, id);
        }
    }

    /**
     * The first half of a transfer, done while holding {@code lease}: reads both balances and
     * computes the new ones.
     *
     * @throws IllegalStateException if {@code from} has less than {@code amount}
     */
    public Plan prepare(Lease lease, String from, String to, long amount) throws SQLException {
        if (amount <= 0) {
            throw new IllegalArgumentException("amount must be positive (was " + amount + ")");
        }
        lease.checkValid();
        long token = lease.fencingToken()
                .orElseThrow(() -> new IllegalStateException("the lock backend hands out no fencing tokens"));
        try (Connection c = connect()) {
            long fromBalance = balance(c, from);
            long toBalance = balance(c, to);
            if (fromBalance < amount) {
                throw new IllegalStateException(
                        "account " + from + " has " + fromBalance + ", cannot transfer " + amount);
            }
            return new Plan(token, from, fromBalance - amount, to, toBalance + amount);
        }
    }

    /**
     * The second half: writes the planned balances, in one transaction with the fencing check.
     *
     * @throws StaleTokenException if a holder with a larger token has written since (nothing is
     *     written then)
     */
    public void commit(Plan plan) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try {
                guard.check(c, LOCK, plan.token()); // locks the fence row until the commit
                setBalance(c, plan.from(), plan.newFromBalance());
                setBalance(c, plan.to(), plan.newToBalance());
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * A whole transfer: takes the lock (waiting up to {@code maxWait}), prepares, commits, releases.
     *
     * @return {@code false} if the lock could not be taken in time
     */
    public boolean transfer(String from, String to, long amount, Duration maxWait)
            throws SQLException, InterruptedException {
        Optional<Lease> acquired = locks.lock(LOCK).tryAcquire(maxWait);
        if (acquired.isEmpty()) {
            return false;
        }
        try (Lease lease = acquired.get()) {
            commit(prepare(lease, from, to, amount));
            return true;
        }
    }

    /** What {@link #prepare} decided, and the token it was decided under. */
    public record Plan(long token, String from, long newFromBalance, String to, long newToBalance) {}

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    private static long balance(Connection c, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT balance FROM account WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalArgumentException("no account " + id);
                }
                return rs.getLong(1);
            }
        }
    }

    private static void setBalance(Connection c, String id, long balance) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = ? WHERE id = ?")) {
            ps.setLong(1, balance);
            ps.setString(2, id);
            ps.executeUpdate();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println(
                    "usage: FencedMoneyTransfer <lock provider URI> <jdbc:mysql://host:port/db> <user> <password>");
            System.exit(2);
        }
        try (LockProvider locks = LockProviders.open(args[0])) {
            FencedMoneyTransfer bank = new FencedMoneyTransfer(locks, args[1], args[2], args[3]);
            bank.createSchema();
            bank.openAccount("alice", 100);
            bank.openAccount("bob", 0);
            bank.transfer("alice", "bob", 30, Duration.ofSeconds(5));
            System.out.println("alice " + bank.balance("alice") + ", bob " + bank.balance("bob"));
        }
    }
}
