package io.distlock.compare.cli;

import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.TestServer;
import java.util.Arrays;
import redis.clients.jedis.Jedis;

/**
 * Diagnostic, not a test: shows how much a raw round trip on this machine depends on whether the
 * CPUs sleep between requests. One redis-server, one connection, {@code PING}s in blocks of 2,000,
 * alternately with the other CPU left idle and with a daemon thread spinning on it (so that the
 * client and the server share the remaining CPU, and no wake-up has to rouse a halted one). Prints the
 * p50 and p90 of every block. See distlock-compare's README, "Two machine modes".
 *
 * <p>Run with the module's test class path: {@code java -cp ... io.distlock.compare.cli.WakeUpModeProbe
 * [rounds]}.
 */
public final class WakeUpModeProbe {
    private static volatile boolean spin;
    private static volatile boolean stop;

    private WakeUpModeProbe() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
        Thread spinner = new Thread(WakeUpModeProbe::spinWhenAsked, "wake-up-mode-spinner");
        spinner.setDaemon(true);
        spinner.start();
        try (TestServer server = RedisServer.start();
                Jedis jedis = new Jedis(server.host(), server.port())) {
            for (int i = 0; i < 20_000; i++) {
                jedis.ping();
            }
            for (int r = 0; r < rounds; r++) {
                for (boolean busy : new boolean[] {false, true}) {
                    spin = busy;
                    Thread.sleep(50);
                    double[] us = new double[2_000];
                    for (int i = 0; i < us.length; i++) {
                        long t0 = System.nanoTime();
                        jedis.ping();
                        us[i] = (System.nanoTime() - t0) / 1e3;
                    }
                    Arrays.sort(us);
                    System.out.printf(
                            "round %d, other CPU %s: PING p50 %.1f µs, p90 %.1f µs%n",
                            r, busy ? "spinning" : "idle    ", us[us.length / 2], us[us.length * 9 / 10]);
                }
            }
        } finally {
            stop = true;
        }
    }

    private static void spinWhenAsked() {
        long n = 0;
        while (!stop) {
            if (spin) {
                n++;
                Thread.onSpinWait();
            } else {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
        if (n == 42) {
            System.out.print(""); // keeps the loop from being optimised away
        }
    }
}
