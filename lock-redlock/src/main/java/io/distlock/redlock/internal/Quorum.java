package io.distlock.redlock.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import io.distlock.Ticker;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Scripts;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.spi.Deadlines;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The N nodes of a provider and what the rounds over them share: the majority they need ({@code N/2
 * + 1}), when a round ends, how a request to one node is sent (directly from the calling thread or
 * through the node's I/O threads), the clean-up of a failed acquisition, and the failure of a round
 * that reached no majority.
 */
final class Quorum {
    private static final Logger log = LoggerFactory.getLogger(Quorum.class);
    static final String BACKEND = "redlock";

    private final List<Node> nodes;
    private final int size;
    private final RedlockLockOptions options;
    private final Ticker ticker;
    private final RedisKeys keys;
    private final long nodeTimeoutNanos;

    Quorum(List<Node> nodes, RedlockLockOptions options, Ticker ticker, RedisKeys keys) {
        this.nodes = nodes;
        this.size = nodes.size() / 2 + 1;
        this.options = options;
        this.ticker = ticker;
        this.keys = keys;
        this.nodeTimeoutNanos = options.nodeTimeout().toNanos();
    }

    List<Node> nodes() {
        return nodes;
    }

    /** Votes needed: {@code N / 2 + 1}. */
    int size() {
        return size;
    }

    Ticker ticker() {
        return ticker;
    }

    RedisKeys keys() {
        return keys;
    }

    RedlockLockOptions options() {
        return options;
    }

    long nodeTimeoutNanos() {
        return nodeTimeoutNanos;
    }

    /**
     * Checks a lease time of a lock handle or an extension: a Redlock lease must be longer than
     * twice the node timeout (the rule the provider's own lease time follows), since a round may take
     * the node timeout and must leave most of the lease as validity.
     *
     * @throws IllegalArgumentException naming the shortest lease time this provider can hold
     */
    void checkLeaseTime(Duration leaseTime) {
        Duration shortest = options.nodeTimeout().multipliedBy(2);
        if (leaseTime.compareTo(shortest) <= 0) {
            throw new IllegalArgumentException("leaseTime must be more than 2 × nodeTimeout on this Redlock provider,"
                    + " so more than " + shortest.toMillis() + " ms (nodeTimeout "
                    + options.nodeTimeout().toMillis()
                    + " ms): a round may take nodeTimeout and must leave most of the lease as validity (was "
                    + leaseTime + ")");
        }
    }

    /**
     * End of a round started at {@code sentAt}: {@code nodeTimeout} later, never past the validity.
     * Until a majority of nodes has answered once since the provider opened, the first connection
     * (TCP connect, handshake, script load) counts too and the connect timeout is added, so the
     * first acquisition of a fresh client does not fail on cold connections; a round still ends as
     * soon as its outcome is decided, so a node that never answers delays nothing once a majority
     * did.
     */
    long roundDeadline(long sentAt, long validUntil) {
        long timeout = nodeTimeoutNanos;
        if (nodes.stream().filter(Node::isWarm).count() < size) {
            timeout =
                    Deadlines.after(timeout, options.timeouts().connectTimeout().toNanos());
        }
        return Math.min(Deadlines.after(sentAt, timeout), validUntil);
    }

    /** The last moment a round may wait for nodes that were sent their request late. */
    long roundCap(long sentAt, long firstDeadline, long validUntil) {
        return Math.min(
                validUntil,
                Math.max(
                        firstDeadline,
                        Deadlines.after(
                                sentAt, options.timeouts().requestTimeout().toNanos())));
    }

    static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** A script reply's first element: 1 for yes. */
    static long flag(List<?> reply) {
        return (Long) reply.get(0);
    }

    /** A round-1 reply's second element: the node's fencing counter. */
    static long counter(List<?> reply) {
        return Long.parseLong(String.valueOf(reply.get(1)));
    }

    /**
     * Deletes {@code owner}'s lock on every node whose round-1 request did not answer "no": on a
     * node still busy with that request, the release follows it, so a late acquisition is undone
     * too. It wakes no queued waiter: a try fails because someone else holds the lock, and that
     * one's release wakes the first in line, or on a split vote, whose contenders try again
     * themselves. Fire-and-forget; the keys expire with their TTL anyway.
     */
    void releaseEverywhere(Round<List<?>> round1, String name, String owner) {
        List<String> keyList = List.of(keys.lockKey(name));
        List<String> args = List.of(owner, keys.channel(name));
        for (Node n : nodes) {
            int i = n.index();
            if (round1.dropIfNotSent(i)) {
                continue; // still queued behind other work: it will never be sent
            }
            round1.future(i).handle((reply, error) -> {
                if (error == null && flag(reply) != 1L) {
                    return null; // this node never held our value
                }
                if (error != null && unwrap(error) instanceof Node.StaleRequestException) {
                    return null; // never sent
                }
                n.<Long>run(Scripts.RELEASE, keyList, args).whenComplete((r, e) -> {
                    if (e != null) {
                        log.debug("distlock.redlock.release_failed lock={} node={}", name, n.address(), e);
                    }
                });
                return null;
            });
        }
    }

    /** The keys of {@code REDLOCK_RELEASE} and {@code REDLOCK_RELEASE_AFTER}: lock, queue, waiters. */
    List<String> releaseKeys(String name) {
        return List.of(keys.lockKey(name), keys.queueKey(name), keys.waitersKey(name));
    }

    /**
     * Node {@code n}'s request, written by the calling thread on one of the node's direct
     * connections if one is idle (no thread hop), through the node's I/O threads otherwise.
     */
    static <T> CompletableFuture<T> directOrIo(
            Node n,
            Scripts.Script script,
            List<String> keyList,
            List<String> args,
            BooleanSupplier send,
            Consumer<DirectRequest<T>> direct) {
        CompletableFuture<T> f = new CompletableFuture<>();
        DirectRequest<T> d = n.sendDirect(script, keyList, args, send, f);
        if (d == null) {
            return n.run(script, keyList, args, send);
        }
        direct.accept(d);
        return f;
    }

    /**
     * The failure of a round that did not reach a majority: a {@link LockConfigurationException} if
     * the nodes that refused the configuration (credentials, an ACL permission, the TLS trust) leave
     * too few for a majority, which no retry can change; otherwise a {@link
     * BackendUnavailableException}, which says how many nodes granted, refused and did not answer
     * (see {@link RoundReport#tally}). Both name the nodes that did not answer and why.
     */
    RuntimeException noMajority(String name, String what, Round<?> round, long deadline) {
        String unanswered = round.describeUnanswered(!round.isDecided() || Deadlines.passed(ticker, deadline));
        int refused = round.configurationFailureCount();
        if (nodes.size() - refused < size) {
            return new LockConfigurationException(
                    what + ": " + refused + " of " + nodes.size()
                            + " Redlock nodes refused the credentials, a permission or the TLS trust, a majority of "
                            + size + " is needed; refused: " + unanswered,
                    BACKEND,
                    round.firstError());
        }
        return new BackendUnavailableException(
                what + ": " + round.tally(options.nodeTimeout().toMillis()) + "; unreachable: " + unanswered,
                name,
                BACKEND,
                round.firstError());
    }

    /**
     * The reply of {@code f} by {@code deadline}, or null (failed or late). An interrupt does not
     * cut the wait short (it is bounded by the node timeout); the flag is set again afterwards.
     */
    <T> T awaitQuietly(CompletableFuture<T> f, long deadline) {
        boolean interrupted = false;
        try {
            while (true) {
                long left = Deadlines.remaining(ticker, deadline);
                try {
                    return left <= 0 ? f.getNow(null) : f.get(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException | CancellationException | CompletionException e) {
                    return null;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
