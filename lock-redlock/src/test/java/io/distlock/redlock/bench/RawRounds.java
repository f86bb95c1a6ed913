package io.distlock.redlock.bench;

import io.distlock.redis.internal.Owners;
import io.distlock.redis.internal.RedisKeys;
import io.distlock.redis.internal.Scripts;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;

/**
 * The protocol's three rounds (the real scripts, nothing else) sent without a thread hop per node
 * and request, for {@link RedlockAbBench}: bounds what a client that writes a round from the calling
 * thread could gain over {@code raw3} (one executor task per node and request).
 *
 * <ul>
 *   <li>{@code direct}: the caller writes the request to all five connections, then reads the five
 *       replies in node order (blocking reads; no latency isolation: the lower bound of client cost).
 *   <li>{@code readers}: the caller writes to all five connections; one reader thread per
 *       connection, blocked in the socket read, completes the reply's future (one wake-up per node
 *       and request instead of two; latency isolation kept).
 * </ul>
 */
final class RawRounds {
    private static final RedisKeys KEYS = new RedisKeys("ab-raw-direct");
    private static final List<String> BOTH = List.of(KEYS.lockKey("raw"), KEYS.tokenKey("raw"));
    private static final List<String> LOCK_ONLY = List.of(KEYS.lockKey("raw"));

    private RawRounds() {}

    private static List<Connection> connect(RedisServers servers) {
        List<Connection> conns = new ArrayList<>();
        for (RedisServer s : servers.servers()) {
            Connection c = new Connection(new HostAndPort(s.host(), s.port()));
            for (Scripts.Script sc : List.of(Scripts.REDLOCK_ACQUIRE, Scripts.REDLOCK_RAISE, Scripts.RELEASE)) {
                c.executeCommand(new CommandArguments(Protocol.Command.SCRIPT)
                        .add("LOAD")
                        .add(sc.text()));
            }
            conns.add(c);
        }
        return conns;
    }

    private static CommandArguments evalsha(Scripts.Script script, List<String> keys, List<String> args) {
        CommandArguments a =
                new CommandArguments(Protocol.Command.EVALSHA).add(script.sha()).add(keys.size());
        keys.forEach(a::key);
        args.forEach(a::add);
        return a;
    }

    /**
     * Whether the raw variants send round 2 (REDLOCK_RAISE) too: {@code -Dab.raw.rounds=3}; by
     * default two rounds (acquire, release), what an acquisition costs since round 1 increments the
     * counters (session 7).
     */
    private static final boolean RAISE = Integer.getInteger("ab.raw.rounds", 2) >= 3;

    private static List<CommandArguments> threeRounds() {
        String owner = Owners.newOwner();
        if (!RAISE) {
            return List.of(
                    evalsha(Scripts.REDLOCK_ACQUIRE, BOTH, List.of(owner, "10000")),
                    evalsha(Scripts.RELEASE, LOCK_ONLY, List.of(owner, KEYS.channel("raw"))));
        }
        return List.of(
                evalsha(Scripts.REDLOCK_ACQUIRE, BOTH, List.of(owner, "10000")),
                evalsha(Scripts.REDLOCK_RAISE, BOTH, List.of(owner, "1")),
                evalsha(Scripts.RELEASE, LOCK_ONLY, List.of(owner, KEYS.channel("raw"))));
    }

    static RedlockAbBench.Variant direct(RedisServers servers) {
        List<Connection> conns = connect(servers);
        return new Simple() {
            @Override
            public void op() {
                for (CommandArguments request : threeRounds()) {
                    for (Connection c : conns) {
                        c.sendCommand(request);
                        c.getMany(0); // flush
                    }
                    for (Connection c : conns) {
                        c.getOne();
                    }
                }
            }

            @Override
            public void close() {
                conns.forEach(Connection::close);
            }
        };
    }

    /**
     * {@code poll}: the caller writes to all five connections, then reads each reply once its socket
     * has bytes ({@code available()}), yielding the CPU between checks (no thread hop, any order).
     */
    static RedlockAbBench.Variant poll(RedisServers servers) {
        List<Connection> conns = new ArrayList<>();
        List<java.net.Socket> sockets = new ArrayList<>();
        for (RedisServer s : servers.servers()) {
            redis.clients.jedis.DefaultJedisSocketFactory plain =
                    new redis.clients.jedis.DefaultJedisSocketFactory(new HostAndPort(s.host(), s.port()));
            java.net.Socket[] holder = new java.net.Socket[1];
            Connection c = new Connection(
                    () -> holder[0] = plain.createSocket(),
                    redis.clients.jedis.DefaultJedisClientConfig.builder().build());
            for (Scripts.Script sc : List.of(Scripts.REDLOCK_ACQUIRE, Scripts.REDLOCK_RAISE, Scripts.RELEASE)) {
                c.executeCommand(new CommandArguments(Protocol.Command.SCRIPT)
                        .add("LOAD")
                        .add(sc.text()));
            }
            conns.add(c);
            sockets.add(holder[0]);
        }
        List<java.io.InputStream> ins = new ArrayList<>();
        for (java.net.Socket so : sockets) {
            try {
                ins.add(so.getInputStream());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return new Simple() {
            @Override
            public void op() throws Exception {
                long[] at = new long[4];
                int r = 0;
                at[r++] = System.nanoTime();
                for (CommandArguments request : threeRounds()) {
                    for (Connection c : conns) {
                        c.sendCommand(request);
                        c.getMany(0); // flush
                    }
                    long w = System.nanoTime();
                    int pending = conns.size();
                    boolean[] done = new boolean[conns.size()];
                    while (pending > 0) {
                        for (int i = 0; i < conns.size(); i++) {
                            if (!done[i] && ins.get(i).available() > 0) {
                                conns.get(i).getUnflushedObject();
                                done[i] = true;
                                pending--;
                            }
                        }
                        if (pending > 0) {
                            Thread.yield();
                        }
                    }
                    at[r++] = System.nanoTime();
                    Split.record("raw-round" + r + " writes|wait", w - at[r - 2], at[r - 1] - w);
                }
                Split.record("raw-poll", at[1] - at[0], at[r - 1] - at[r - 2]);
            }

            @Override
            public void close() {
                conns.forEach(Connection::close);
            }
        };
    }

    static RedlockAbBench.Variant pingDirect(RedisServers servers) {
        List<Connection> conns = connect(servers);
        CommandArguments ping = new CommandArguments(Protocol.Command.PING);
        return new Simple() {
            @Override
            public void op() {
                for (Connection c : conns) {
                    c.sendCommand(ping);
                    c.getMany(0);
                }
                for (Connection c : conns) {
                    c.getOne();
                }
            }

            @Override
            public void close() {
                conns.forEach(Connection::close);
            }
        };
    }

    static RedlockAbBench.Variant readers(RedisServers servers) {
        List<Connection> conns = connect(servers);
        List<ConcurrentLinkedQueue<CompletableFuture<Object>>> pending = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < conns.size(); i++) {
            Connection c = conns.get(i);
            c.setTimeoutInfinite();
            ConcurrentLinkedQueue<CompletableFuture<Object>> q = new ConcurrentLinkedQueue<>();
            pending.add(q);
            Thread t = new Thread(
                    () -> {
                        while (true) {
                            Object reply;
                            try {
                                reply = c.getUnflushedObject();
                            } catch (RuntimeException e) {
                                CompletableFuture<Object> f;
                                while ((f = q.poll()) != null) {
                                    f.completeExceptionally(e);
                                }
                                return;
                            }
                            CompletableFuture<Object> f = q.poll();
                            if (f != null) {
                                f.complete(reply);
                            }
                        }
                    },
                    "distlock-redlock-ab-reader-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        return new Simple() {
            @Override
            public void op() {
                for (CommandArguments request : threeRounds()) {
                    List<CompletableFuture<Object>> fs = new ArrayList<>(conns.size());
                    for (int i = 0; i < conns.size(); i++) {
                        CompletableFuture<Object> f = new CompletableFuture<>();
                        pending.get(i).add(f);
                        fs.add(f);
                        Connection c = conns.get(i);
                        c.sendCommand(request);
                        c.getMany(0);
                    }
                    CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new))
                            .join();
                }
            }

            @Override
            public void close() {
                conns.forEach(Connection::close);
            }
        };
    }

    private abstract static class Simple implements RedlockAbBench.Variant {
        @Override
        public RedlockAbBench.Variant another() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean contendedOp() {
            throw new UnsupportedOperationException();
        }
    }
}
