package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.testing.servers.MariaDbServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The smoke profile against the replicated Redis topologies (Sentinel and Cluster, whose failovers
 * take most of the smoke's time), in a JVM of its own beside {@link NemesisIT}.
 */
class NemesisReplicatedRedisIT {
    /** The backends this class runs; {@link NemesisIT} runs the others. */
    static final List<String> BACKENDS = List.of("redis-sentinel", "redis-cluster");

    private static MariaDbServer db;

    @BeforeAll
    static void startResource() {
        db = MariaDbServer.start();
    }

    @AfterAll
    static void stopResource() {
        if (db != null) {
            db.close();
        }
    }

    @Test
    void smoke_replicatedRedis_noStaleOrOutOfOrderWriteAcceptedAndNoLostUpdate() throws Exception {
        Results.Run run = SmokeRun.run(db, BACKENDS, "nemesis-smoke-replicated", NemesisReplicatedRedisIT.class);

        // the suite shows the violation an unsafe backend admits: Redis failover without WAIT
        Results.Backend sentinel = SmokeRun.backend(run, "redis-sentinel");
        assertThat(sentinel.phases())
                .filteredOn(p -> p.fault().equals(FaultKind.REDIS_FAILOVER.id()))
                .singleElement()
                .satisfies(p -> assertThat(p.overlaps())
                        .as("double grants after the failover")
                        .isPositive());
        assertThat(sentinel.phases())
                .extracting(Results.Phase::fault)
                .as("every client fault also under Sentinel")
                .contains(
                        FaultKind.PAUSE_HOLDER.id(),
                        FaultKind.PARTITION_HOLDER.id(),
                        FaultKind.RESET_CONNECTIONS.id(),
                        FaultKind.LATENCY.id());
        // a Cluster goes through resharding and master failover: both ran on a held lock
        assertThat(SmokeRun.backend(run, "redis-cluster").phases())
                .extracting(Results.Phase::fault)
                .contains(FaultKind.SLOT_MIGRATION.id(), FaultKind.CLUSTER_FAILOVER.id());
    }
}
