package io.distlock.redis;

import io.distlock.Lease;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Child-JVM lock holder for the process fault ITs. Args: host port lockName leaseMillis. Prints
 * {@code ACQUIRED <token>}, then answers {@code STATUS} on stdin with {@code STATUS <valid> <lost>
 * <token>} (waiting up to 2 s for the loss signal) and exits on {@code EXIT}.
 */
public final class HolderMain {
    private HolderMain() {}

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        String name = args[2];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        try (RedisLockProvider p = RedisLockProvider.builder()
                .standalone(host, port)
                .leaseTime(lease)
                .build()) {
            Lease l = p.lock(name).acquire();
            long token = l.fencingToken().getAsLong();
            System.out.println("ACQUIRED " + token);
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("STATUS")) {
                    boolean lost;
                    try {
                        l.lost().toCompletableFuture().get(2, TimeUnit.SECONDS);
                        lost = true;
                    } catch (TimeoutException e) {
                        lost = false;
                    }
                    System.out.println("STATUS " + l.isValid() + " " + lost + " " + token);
                    System.out.flush();
                } else if (line.equals("EXIT")) {
                    return;
                }
            }
        }
    }
}
