package io.distlock.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A test-kit user's class path: lock-testing declares Testcontainers and MySQL Connector/J optional,
 * so a backend module that depends on lock-testing does not get them. This runs {@link
 * WithoutOptionalDependenciesMain} in a child JVM on this module's test class path without those jars
 * and checks that the test kit's classes load, the TCK runs and the local launchers (MariaDB too) work, and that docker mode and
 * MariaDbServer's JDBC access fail with a message naming the artifact to add. (That the artifacts stay optional in the pom is checked by
 * lock-zookeeper's enforcer rule, which bans them there.)
 */
class WithoutOptionalDependenciesIT {
    /** Path fragments of the optional artifacts and what they bring (docker-java). */
    private static final List<String> OPTIONAL = List.of(
            "/org/testcontainers/".replace('/', File.separatorChar),
            "/com/github/docker-java/".replace('/', File.separatorChar),
            "/com/mysql/".replace('/', File.separatorChar),
            "/org/postgresql/".replace('/', File.separatorChar));

    private static final Map<String, String> results = new LinkedHashMap<>();
    private static long childPid;

    @BeforeAll
    static void runChildWithoutOptionalDependencies() throws Exception {
        String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
        String classPath = Arrays.stream(entries)
                .filter(e -> OPTIONAL.stream().noneMatch(e::contains))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(classPath.split(File.pathSeparator))
                .as("the optional jars were on the test class path")
                .hasSizeLessThan(entries.length);
        Path output = Files.createTempFile("distlock-without-optional", ".out");
        Process child = new ProcessBuilder(
                        Paths.get(System.getProperty("java.home"), "bin", "java")
                                .toString(),
                        "-cp",
                        classPath,
                        WithoutOptionalDependenciesMain.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .redirectOutput(output.toFile())
                .start();
        try {
            assertThat(child.waitFor(180, TimeUnit.SECONDS))
                    .as("the child finished in time")
                    .isTrue();
            childPid = child.pid();
            for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
                int eq = line.indexOf('=');
                if (line.equals("DONE")) {
                    results.put("DONE", "");
                } else if (eq > 0) {
                    results.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        } finally {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            Files.deleteIfExists(output);
        }
        System.out.println("child without optional dependencies: " + results);
        assertThat(results).as("the child ran to the end").containsKey("DONE");
    }

    @AfterAll
    static void childLeftNoServerDirectories() throws Exception {
        Path base = ServerDirs.base();
        if (childPid == 0 || !Files.exists(base)) {
            return;
        }
        try (Stream<Path> dirs = Files.list(base)) {
            assertThat(dirs.filter(d -> {
                        try {
                            return Files.readString(d.resolve(ServerDirs.OWNER_FILE))
                                    .trim()
                                    .equals(Long.toString(childPid));
                        } catch (IOException e) {
                            return false;
                        }
                    }))
                    .as("server directories of the child JVM")
                    .isEmpty();
        }
    }

    @Test
    void childClassPath_optionalDependencies_absent() {
        assertThat(results).containsEntry("testcontainers.absent", "true").containsEntry("mysql.absent", "true");
    }

    @Test
    void testKitClasses_withoutOptionalDependencies_allLoadButDockerServers() {
        assertThat(Integer.parseInt(results.get("classes.loaded"))).isGreaterThan(30);
        assertThat(results).containsEntry("classes.failed", "[]");
    }

    @Test
    void tck_withoutOptionalDependencies_runs() {
        assertThat(results.get("tck.memory")).as("succeeded/failed/found").matches("[1-9][0-9]*/0/[1-9][0-9]*");
    }

    @Test
    void localServers_withoutOptionalDependencies_start() {
        assertThat(results)
                .containsEntry("local.redis", "PONG")
                .containsEntry("local.etcd", "v")
                .containsEntry("local.zookeeper", "true");
        assertThat(results.get("local.mariadb")).isNotNull();
    }

    @Test
    void autoMode_withoutTestcontainers_startsLocally() {
        assertThat(results).containsEntry("auto.useDocker", "false");
    }

    @Test
    void dockerMode_withoutTestcontainers_failsNamingTheArtifact() {
        assertThat(results.get("docker.redis"))
                .startsWith("ServerStartException")
                .contains("distlock.servers=docker")
                .contains("org.testcontainers:testcontainers");
        assertThat(results.get("docker.etcd")).isEqualTo(results.get("docker.redis"));
        assertThat(results.get("docker.postgresql")).isEqualTo(results.get("docker.redis"));
    }

    @Test
    void mariaDb_withoutMySqlDriver_startsWithItsDatabaseAndUser() {
        assertThat(results).containsEntry("local.mariadb", MariaDbServer.USER + "@%");
    }

    @Test
    void mariaDbJdbcAccess_withoutMySqlDriver_failsNamingTheArtifact() {
        assertThat(results.get("mariadb.connect")).startsWith("SQLException").contains("com.mysql:mysql-connector-j");
    }

    @Test
    void childJvmWrite_withoutMySqlDriver_failsNamingTheArtifact() {
        assertThat(results.get("child.write"))
                .startsWith("IllegalStateException")
                .contains("no JDBC driver for jdbc:mysql: URLs")
                .contains("com.mysql:mysql-connector-j")
                .doesNotContain(MariaDbServer.DATABASE);
    }
}
