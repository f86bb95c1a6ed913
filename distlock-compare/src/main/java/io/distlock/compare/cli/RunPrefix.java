package io.distlock.compare.cli;

import java.security.SecureRandom;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The one name under which a comparison run creates everything on the servers (keys, nodes, rows,
 * tables), ours and the peers', so that the run can remove all of it at the end and a check can
 * prove nothing is left: {@code distlock-compare-<run id>} (Redis keys, ZooKeeper paths, etcd
 * keys), {@code distlock_compare_<run id>} for SQL tables.
 *
 * @param id the run id: the start time and four random hex digits, for example {@code
 *     20261127083046-a1b2}
 */
record RunPrefix(String id) {
    private static final String NAME = "distlock-compare-";

    RunPrefix {
        if (!id.matches("[0-9a-z-]{1,40}")) {
            throw new IllegalArgumentException("run id must be 1 to 40 of [0-9a-z-] (was '" + id + "')");
        }
    }

    static RunPrefix generate() {
        byte[] random = new byte[2];
        new SecureRandom().nextBytes(random);
        return new RunPrefix(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMddHHmmss")) + "-"
                + HexFormat.of().formatHex(random));
    }

    /** {@code distlock-compare-<id>}: the Redis key prefix, the first segment of ZooKeeper paths and etcd keys. */
    String name() {
        return NAME + id;
    }

    /** {@code distlock_compare_<id>}: the start of every SQL table name. */
    String sql() {
        return name().replace('-', '_').toLowerCase(Locale.ROOT);
    }

    /** {@code /distlock-compare-<id>}: the ZooKeeper root of the run. */
    String zkRoot() {
        return "/" + name();
    }

    /** {@code /distlock-compare-<id>/}: the etcd key prefix of the run. */
    String etcdPrefix() {
        return "/" + name() + "/";
    }
}
