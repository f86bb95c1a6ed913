package io.distlock.etcd;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;

/**
 * A lock holder in a child JVM (test helper): acquires, prints {@code TOKEN t}, then every 50 ms
 * prints {@code WRITE t valid=<isValid>} (its attempt at a guarded write), and {@code LOST} once
 * the loss signal fires. Args: endpoint, lock name, lease millis.
 */
public final class ChildHolderMain {
    private ChildHolderMain() {}

    public static void main(String[] args) throws Exception {
        try (EtcdLockProvider p = EtcdLockProvider.builder()
                .etcdOptions(EtcdLockOptions.builder()
                        .endpoints(args[0])
                        .requestTimeout(Duration.ofSeconds(2))
                        .build())
                .options(LockOptions.defaults()
                        .mutate()
                        .leaseTime(Duration.ofMillis(Long.parseLong(args[2])))
                        .build())
                .build()) {
            Lease lease = p.lock(args[1]).acquire();
            long token = lease.fencingToken().getAsLong();
            lease.lost().whenComplete((e, t) -> {
                if (e != null) {
                    System.out.println("LOST " + e.getMessage());
                    System.out.flush();
                }
            });
            System.out.println("TOKEN " + token);
            System.out.flush();
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < end) {
                System.out.println("WRITE " + token + " valid=" + lease.isValid());
                System.out.flush();
                Thread.sleep(50); // the child's work loop, not a test wait
            }
        }
    }
}
