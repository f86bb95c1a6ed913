package io.distlock.integration.leader;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.integration.DistlockLockRegistry;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * A leader-election candidate in its own JVM, run by {@link CandidateJvm}: a {@link
 * LockRegistryLeaderInitiator} over a {@link DistlockLockRegistry}, printing its events on stdout.
 *
 * <p>Arguments: {@code role heartBeatMillis busyWaitMillis}. The first line on stdin is the provider
 * URI (stdin, not the command line: it may carry a password). Prints {@code READY <pid>}, then
 * {@code GRANTED <token|none>} when elected (the token read from {@link
 * DistlockLockRegistry#lease(Object)}, as a leader's writes would), {@code LOST} when that lease is
 * lost, {@code REVOKED} when the initiator revokes leadership. Stops when stdin closes.
 */
public final class LeaderCandidateMain {
    private LeaderCandidateMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LeaderCandidateMain role heartBeatMillis busyWaitMillis");
            System.exit(2);
        }
        String role = args[0];
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        System.setOut(System.err); // stdout carries events only
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String uri = in.readLine();
        if (uri == null) {
            System.exit(2);
        }
        try (LockProvider locks = LockProviders.open(uri.trim())) {
            DistlockLockRegistry registry = DistlockLockRegistry.create(locks);
            LockRegistryLeaderInitiator initiator =
                    new LockRegistryLeaderInitiator(registry, new AbstractCandidate(null, role) {
                        @Override
                        public void onGranted(Context ctx) {
                            Lease lease = registry.lease(role).orElseThrow();
                            out.println("GRANTED "
                                    + (lease.fencingToken().isPresent()
                                            ? Long.toString(lease.fencingToken().getAsLong())
                                            : "none"));
                            lease.lost().thenAccept(cause -> out.println("LOST"));
                        }

                        @Override
                        public void onRevoked(Context ctx) {
                            out.println("REVOKED");
                        }
                    });
            initiator.setHeartBeatMillis(Long.parseLong(args[1]));
            initiator.setBusyWaitMillis(Long.parseLong(args[2]));
            initiator.setLeaderEventPublisher(new LeaderEventPublisher() {
                @Override
                public void publishOnGranted(Object source, Context context, String r) {}

                @Override
                public void publishOnRevoked(Object source, Context context, String r) {}

                @Override
                public void publishOnFailedToAcquire(Object source, Context context, String r) {}
            });
            initiator.start();
            out.println("READY " + ProcessHandle.current().pid());
            while (in.readLine() != null) {
                // nothing to do until stdin closes
            }
            initiator.stop();
        }
        System.exit(0);
    }
}
