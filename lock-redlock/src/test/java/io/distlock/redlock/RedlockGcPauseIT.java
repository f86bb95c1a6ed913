package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.testing.faults.ChildJvmLockClient;
import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.RedisServers;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The GC-pause scenario of the Redlock debate, executable: a holder in a child JVM is frozen
 * (SIGSTOP) past its validity; another client acquires and writes to a fencing-guarded table; the
 * holder resumes and writes with its old token, not knowing it lost the lock — and the guard
 * rejects that write because the new holder's token is larger.
 */
class RedlockGcPauseIT {

    @Test
    void write_holderPausedPastValidityThenResumed_isRejectedByTheFencingGuard() throws Exception {
        JdbcFencingGuard guard = JdbcFencingGuard.create();
        try (RedisServers nodes = RedisServers.independentMasters(5);
                MariaDbServer db = MariaDbServer.start();
                ChildJvmLockClient holder =
                        ChildJvmLockClient.start("redlock://" + nodes.addresses() + "?leaseTime=1s&nodeTimeout=200ms");
                RedlockLockProvider other = RedlockLockProvider.builder()
                        .nodes(nodes.addresses().split(","))
                        .options(RedlockLockOptions.builder()
                                .nodeTimeout(Duration.ofMillis(200))
                                .build())
                        .leaseTime(Duration.ofSeconds(1))
                        .build()) {
            ChildJvmLockClient.Acquisition first = holder.acquire("gc-pause", Duration.ofSeconds(5));
            assertThat(first.acquired()).isTrue();
            long oldToken = first.token().orElseThrow();
            assertThat(holder.write(db.jdbcUrl(), db.user(), db.password(), "orders")
                            .accepted())
                    .as("the holder's write before the pause")
                    .isTrue();

            holder.pause(); // a stop-the-world pause: no renewal, no I/O
            Lease lease =
                    other.lock("gc-pause").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            long newToken = lease.fencingToken().orElseThrow();
            assertThat(newToken).isGreaterThan(oldToken);
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                guard.check(c, "orders", newToken);
                c.commit();
            }

            holder.resume();
            ChildJvmLockClient.WriteResult late = holder.write(db.jdbcUrl(), db.user(), db.password(), "orders");
            assertThat(late.accepted())
                    .as("the resumed holder's write with token %d", oldToken)
                    .isFalse();
            assertThat(late.lastAccepted()).hasValue(newToken);
            lease.release();
        }
    }
}
