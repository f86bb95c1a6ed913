package io.distlock.compare.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.compare.MachineMode;
import io.distlock.compare.ScalePoints;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompareOptionsTest {

    private static CompareOptions parse(Map<String, String> env, String... args) {
        return CompareOptions.parse(args, env);
    }

    private static CompareOptions parse(String... args) {
        return parse(Map.of(), args);
    }

    @Test
    void parse_noOptions_fullRun_bothModes_direct1msAndTheDefaultCurves() {
        CompareOptions o = parse();

        assertThat(o.settings().modes()).containsExactly(MachineMode.IDLE, MachineMode.FAST);
        assertThat(o.settings().oneWayDelays()).containsExactly(Duration.ZERO, Duration.ofMillis(1));
        assertThat(o.settings().scale()).isEqualTo(ScalePoints.defaults());
        assertThat(o.backends())
                .containsExactlyElementsOf(CompareMain.knownBackends().keySet());
        assertThat(o.existing()).isEmpty();
    }

    @Test
    void parse_quick_oneModeAndTinyCurves() {
        CompareOptions o = parse("--quick");

        assertThat(o.settings().modes()).containsExactly(MachineMode.IDLE);
        assertThat(o.settings().oneWayDelays()).containsExactly(Duration.ZERO, Duration.ofMillis(1));
        assertThat(o.settings().scale()).isEqualTo(ScalePoints.quick());
    }

    @Test
    void parse_modesRttAndScale() {
        CompareOptions o = parse(
                "--modes",
                "fast,idle",
                "--rtt",
                "0,200us,1ms",
                "--scale",
                "clients,waiters",
                "--scale-clients",
                "1,2,3");

        assertThat(o.settings().modes()).containsExactly(MachineMode.FAST, MachineMode.IDLE);
        assertThat(o.settings().oneWayDelays())
                .containsExactly(Duration.ZERO, Duration.ofNanos(200_000), Duration.ofMillis(1));
        assertThat(o.settings().scale().clients()).containsExactly(1, 2, 3);
        assertThat(o.settings().scale().heldLocks()).isEmpty();
        assertThat(o.settings().scale().waiters())
                .isEqualTo(ScalePoints.defaults().waiters());
        assertThat(parse("--rtt", "none", "--scale", "none").settings().oneWayDelays())
                .isEmpty();
        assertThat(parse("--scale", "none").settings().scale().isEmpty()).isTrue();
        // a curve runs only with its scenario: clients with contended, locks with renewal, waiters with handoff_many
        ScalePoints onlyLocks =
                parse("--scenarios", "uncontended,renewal").settings().scale();
        assertThat(onlyLocks.clients()).isEmpty();
        assertThat(onlyLocks.heldLocks()).isEqualTo(ScalePoints.defaults().heldLocks());
        assertThat(onlyLocks.waiters()).isEmpty();
    }

    @Test
    void parse_badModesRttOrScale_namesTheOptionAndTheRule() {
        assertThatThrownBy(() -> parse("--modes", "turbo")).hasMessageContaining("--modes takes idle and/or fast");
        assertThatThrownBy(() -> parse("--rtt", "-1ms")).hasMessageContaining("--rtt must be at least 0");
        assertThatThrownBy(() -> parse("--rtt", "fast")).hasMessageContaining("bad duration 'fast' for --rtt");
        assertThatThrownBy(() -> parse("--scale", "names")).hasMessageContaining("--scale takes clients, locks");
        assertThatThrownBy(() -> parse("--scale-locks", "100,10")).hasMessageContaining("must be ascending");
    }

    @Test
    void parse_existingServers_onlyThoseBackendsRun_credentialsFromTheEnvironment_neverInTheCommand() {
        CompareOptions o = parse(
                Map.of(
                        "DISTLOCK_COMPARE_MYSQL_PASSWORD",
                        "s3cret",
                        "DISTLOCK_COMPARE_REDIS_PASSWORD",
                        "r3dis",
                        "DISTLOCK_COMPARE_POSTGRESQL_PASSWORD",
                        "pg-pw"),
                "--redis",
                "redis://staging:6380",
                "--mysql",
                "mysql://app@db.staging/locks",
                "--zookeeper",
                "zookeeper://zk1,zk2:2182/team",
                "--etcd",
                "etcd://ops:pw%40x@e1:2379",
                "--postgresql",
                "postgresql://app@pg.staging/locks");

        assertThat(o.backends()).containsExactly("redis", "mysql", "zookeeper", "etcd", "postgresql");
        ServerAddress mysql = o.existing().get("mysql");
        assertThat(mysql.nodes()).containsExactly("db.staging:3306");
        assertThat(mysql.user()).isEqualTo("app");
        assertThat(mysql.password()).isEqualTo("s3cret");
        assertThat(mysql.path()).isEqualTo("locks");
        assertThat(o.existing().get("redis").password()).isEqualTo("r3dis");
        ServerAddress postgresql = o.existing().get("postgresql");
        assertThat(postgresql.nodes()).containsExactly("pg.staging:5432");
        assertThat(postgresql.user()).isEqualTo("app");
        assertThat(postgresql.password()).isEqualTo("pg-pw");
        assertThat(postgresql.path()).isEqualTo("locks");
        assertThat(o.existing().get("zookeeper").nodes()).containsExactly("zk1:2181", "zk2:2182");
        assertThat(o.existing().get("zookeeper").path()).isEqualTo("team");
        assertThat(o.existing().get("etcd").password()).isEqualTo("pw@x");
        assertThat(o.command()).contains("etcd://ops:***@e1:2379").doesNotContain("pw%40x", "s3cret");
        assertThat(mysql.toString()).doesNotContain("s3cret");
    }

    @Test
    void parse_badExistingServers_namesTheOptionAndTheRule() {
        assertThatThrownBy(() -> parse("--redis", "rediss://staging:6379"))
                .hasMessageContaining("--redis must be a redis:// URI")
                .hasMessageContaining("TLS servers are not supported");
        assertThatThrownBy(() -> parse("--mysql", "mysql://db.staging/locks"))
                .hasMessageContaining("--mysql must name a user and a database");
        assertThatThrownBy(() -> parse("--postgresql", "postgresql://pg.staging/locks"))
                .hasMessageContaining("--postgresql must name a user and a database: postgresql://user@host");
        assertThatThrownBy(() -> parse("--redis", "redis://a:1,b:2")).hasMessageContaining("names one server");
        assertThatThrownBy(() -> parse("--redis", "redis://h:1?leaseTime=5s"))
                .hasMessageContaining("takes no parameters");
        assertThatThrownBy(() -> parse("--backends", "etcd", "--redis", "redis://h:1"))
                .hasMessageContaining("--redis names servers for a backend that --backends leaves out");
    }

    @Test
    void runPrefix_oneNameForEveryBackend() {
        RunPrefix p = new RunPrefix("20261127083046-a1b2");

        assertThat(p.name()).isEqualTo("distlock-compare-20261127083046-a1b2");
        assertThat(p.sql()).isEqualTo("distlock_compare_20261127083046_a1b2");
        assertThat(p.zkRoot()).isEqualTo("/distlock-compare-20261127083046-a1b2");
        assertThat(p.etcdPrefix()).isEqualTo("/distlock-compare-20261127083046-a1b2/");
        assertThat(RunPrefix.generate().name()).matches("distlock-compare-[0-9]{14}-[0-9a-f]{4}");
        assertThatThrownBy(() -> new RunPrefix("Bad_Id")).hasMessageContaining("run id must be");
    }
}
