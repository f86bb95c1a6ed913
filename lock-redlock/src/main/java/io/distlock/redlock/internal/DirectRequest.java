package io.distlock.redlock.internal;

import io.distlock.redis.core.RedisErrors;
import io.distlock.redis.core.Scripts;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A request written by the calling thread on a direct connection ({@link DirectPath}), its reply not
 * read yet. The round's thread {@link #poll}s it; if the round's outcome needs the reply no sooner,
 * it is {@link #handOff handed} to the node's I/O threads, which wait for it (the round's thread may
 * still poll it at its deadline). Exactly one of them reads the reply and gives the connection back.
 */
final class DirectRequest<T> {
    private final Node node;
    private final DirectPath path;
    private final DirectConnection connection; // null: not sent (its round was over)
    private final Scripts.Script script;
    private final List<String> keys;
    private final List<String> args;
    private final CompletableFuture<T> future;
    private final Lane lane;
    /**
     * Set by whoever reads the reply: the round's thread polling, or, once handed off, the I/O
     * thread; the round's thread may still take a handed-off reply that has arrived when the I/O
     * thread has not run yet (a loaded machine), so an answer in time is not lost.
     */
    private final AtomicBoolean claimed = new AtomicBoolean();

    DirectRequest(
            Node node,
            DirectPath path,
            DirectConnection connection,
            Scripts.Script script,
            List<String> keys,
            List<String> args,
            CompletableFuture<T> future,
            Lane lane) {
        this.node = node;
        this.path = path;
        this.lane = lane;
        this.connection = connection;
        this.script = script;
        this.keys = keys;
        this.args = args;
        this.future = future;
    }

    /** Reads the reply if it has arrived (without blocking otherwise); whether it did. */
    boolean poll() {
        if (connection == null || claimed.get()) {
            return true; // not sent (its round was over), or read by an I/O thread
        }
        if (!connection.ready()) {
            return false;
        }
        if (claimed.compareAndSet(false, true)) {
            readReply();
        }
        return true;
    }

    /** Lets one of the node's I/O threads wait for the reply. */
    void handOff() {
        if (connection == null) {
            return;
        }
        path.handedOff();
        try {
            lane.execute(() -> {
                if (claimed.compareAndSet(false, true)) {
                    readReply();
                }
            });
        } catch (RejectedExecutionException e) {
            if (claimed.compareAndSet(false, true)) {
                path.drop(connection);
                future.completeExceptionally(e);
            }
        }
    }

    private void readReply() {
        Object reply;
        try {
            reply = connection.read();
        } catch (JedisDataException e) {
            path.giveBack(connection); // a script error leaves the connection fine
            if (RedisErrors.configurationProblem(e).isPresent()) {
                node.failed(e); // NOPERM: the same request on another connection gets the same answer
                future.completeExceptionally(e);
                return;
            }
            // e.g. NOSCRIPT after a restart: the I/O threads' path runs it again with its EVAL
            // fallback (every script is idempotent)
            retryOnIoThreads();
            return;
        } catch (RuntimeException e) {
            path.drop(connection);
            if (!node.isClosing() && RedisErrors.isStaleConnection(e)) {
                retryOnIoThreads(); // died while idle (restart, reset): on a new connection
                return;
            }
            node.markSuspect();
            node.failed(e);
            future.completeExceptionally(e);
            return;
        }
        if (connection.usable()) {
            path.giveBack(connection);
        } else {
            path.drop(connection);
        }
        node.answered();
        @SuppressWarnings("unchecked")
        T t = (T) reply;
        future.complete(t);
    }

    private void retryOnIoThreads() {
        node.<T>call(lane, script, keys, args).whenComplete((v, e) -> {
            if (e != null) {
                future.completeExceptionally(e.getCause() != null ? e.getCause() : e);
            } else {
                future.complete(v);
            }
        });
    }
}
