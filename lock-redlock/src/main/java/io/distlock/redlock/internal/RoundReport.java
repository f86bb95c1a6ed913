package io.distlock.redlock.internal;

import io.distlock.redis.core.RedisErrors;
import java.util.List;

/** How a {@link Round}'s failed and silent nodes are named in messages and log lines. */
final class RoundReport {
    private RoundReport() {}

    /**
     * {@code "host:port (reason), ..."} for nodes that failed, then (after {@code "; "}) nodes whose
     * reply was still pending: {@code "no reply in time"} if the deadline passed, otherwise the round
     * was decided early (a majority had become impossible) and they are listed as pending.
     *
     * @param answers per node, its answer or null
     * @param errors per node, its failure or null
     */
    static String unanswered(List<Node> nodes, Object[] answers, Throwable[] errors, boolean deadlinePassed) {
        StringBuilder failed = new StringBuilder();
        StringBuilder pending = new StringBuilder();
        for (Node n : nodes) {
            int i = n.index();
            if (answers[i] != null) {
                continue;
            }
            Throwable e = errors[i];
            if (e == null && !deadlinePassed) {
                pending.append(pending.length() > 0 ? ", " : "").append(n.address());
                continue;
            }
            failed.append(failed.length() > 0 ? ", " : "").append(n.address()).append(" (");
            failed.append(e == null ? "no reply in time" : reason(e)).append(')');
        }
        if (pending.length() > 0) {
            failed.append("; still pending when a majority became impossible: ").append(pending);
        }
        return failed.toString();
    }

    /**
     * What a round that reached no majority got, e.g. {@code "2 of 5 Redlock nodes granted, 2
     * refused and 1 did not answer (node timeout 50 ms), a majority of 3 is needed"}: "granted" is
     * a yes of the round's request (the lock, the counter, the extension, the deletion), "refused" a
     * no, and a node that did not answer failed or had no reply in time.
     */
    static String tally(int nodes, int granted, int refused, int unanswered, long nodeTimeoutMillis, int majority) {
        return granted + " of " + nodes + " Redlock nodes granted, " + refused + " refused and " + unanswered
                + " did not answer (node timeout " + nodeTimeoutMillis + " ms), a majority of " + majority
                + " is needed";
    }

    /** Number of {@code errors} that are configuration problems ({@link RedisErrors}). */
    static int configurationFailures(Throwable[] errors) {
        int n = 0;
        for (Throwable e : errors) {
            if (e != null && RedisErrors.configurationProblem(e).isPresent()) {
                n++;
            }
        }
        return n;
    }

    /**
     * {@code "Class: message"} of {@code e}, plus the innermost cause's when it says something else
     * (a pool's "Could not get a resource" hides the server's {@code WRONGPASS}), at most 200
     * characters.
     */
    static String reason(Throwable e) {
        String s = describe(e);
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != e) {
            s = s + " <- " + describe(root);
        }
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
