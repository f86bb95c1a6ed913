package io.distlock.testing.servers;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import io.distlock.tck.LockProviderTck;
import io.distlock.tck.TckFixture;
import io.distlock.testing.faults.ChildJvmLockClient;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Run by {@link WithoutOptionalDependenciesIT} in a child JVM whose class path lacks lock-testing's
 * optional dependencies (Testcontainers with docker-java, MySQL Connector/J), as a test-kit user's
 * would.
 * Prints one {@code key=value} line per check, then {@code DONE}.
 */
public final class WithoutOptionalDependenciesMain {
    private WithoutOptionalDependenciesMain() {}

    public static void main(String[] args) throws Exception {
        report("testcontainers.absent", !loadable("org.testcontainers.DockerClientFactory"));
        report("mysql.absent", !loadable("com.mysql.cj.jdbc.Driver"));

        // every class of lock-testing's main jar (or classes directory) loads, links and initialises, but
        // the docker-only one
        Path location = Paths.get(TestServer.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        List<String> failed = new ArrayList<>();
        int loaded = 0;
        try (FileSystem jar = Files.isDirectory(location) ? null : FileSystems.newFileSystem(location);
                Stream<Path> files = Files.walk(jar == null ? location : jar.getPath("/"))) {
            Path root = jar == null ? location : jar.getPath("/");
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                String name = root.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (name.startsWith(DockerServers.class.getName())
                        || name.endsWith("package-info")
                        || name.endsWith("module-info")) {
                    continue;
                }
                try {
                    Class.forName(name, true, WithoutOptionalDependenciesMain.class.getClassLoader());
                    loaded++;
                } catch (Throwable t) {
                    failed.add(name + ": " + t);
                }
            }
        }
        report("classes.loaded", loaded);
        report("classes.failed", failed);

        // the TCK runs beside the test kit
        report("tck.memory", run(MemoryTck.class.getName()));

        System.setProperty(ServerMode.PROPERTY, "auto");
        report("auto.useDocker", ServerMode.useDocker());
        System.setProperty(ServerMode.PROPERTY, "docker");
        report("docker.redis", failure(() -> RedisServer.start().close()));
        report("docker.etcd", failure(() -> EtcdServer.start().close()));
        report("docker.postgresql", failure(() -> PostgresServer.start().close()));
        System.setProperty(ServerMode.PROPERTY, "local");
        try (MariaDbServer db = MariaDbServer.start()) {
            // the database and user exist (from the init file): ask with the mariadb command-line client
            ProcessBuilder client = new ProcessBuilder(
                            Binaries.require("mariadb-client", "mariadb", "/usr/bin/mariadb")
                                    .toString(),
                            "--no-defaults",
                            "--protocol=TCP",
                            "--host=" + db.host(),
                            "--port=" + db.port(),
                            "--user=" + db.user(),
                            "--database=" + db.database(),
                            "--skip-column-names",
                            "--execute=SELECT CURRENT_USER()")
                    .redirectErrorStream(true);
            // the password through the environment, not the command line
            client.environment().put("MYSQL_PWD", db.password());
            Process p = client.start();
            p.getOutputStream().close();
            if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            report(
                    "local.mariadb",
                    new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim());
            report("mariadb.connect", failure(() -> db.connect().close()));
            // a guarded write from a lock client in a child JVM (this class path: no driver either)
            try (ChildJvmLockClient holder = ChildJvmLockClient.start("mem://nodeps?leaseTime=5s")) {
                holder.acquire("orders", Duration.ofSeconds(5));
                report("child.write", failure(() -> holder.write(db.jdbcUrl(), db.user(), db.password(), "orders")));
            }
        }

        try (RedisServer redis = RedisServer.start()) {
            report("local.redis", redis.call("PING"));
        }
        try (EtcdServer etcd = EtcdServer.start()) {
            etcd.put("distlock/k", "v");
            report("local.etcd", etcd.get("distlock/k"));
        }
        try (TestServer zk = ZooKeeperServer.start()) {
            report("local.zookeeper", zk.isRunning());
        }
        System.out.println("DONE");
    }

    /** The TCK against the in-JVM provider, run only through the launcher above. */
    public static final class MemoryTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            MemoryLockServer server = MemoryLockServer.create();
            return new TckFixture() {
                @Override
                public String backend() {
                    return "mem";
                }

                @Override
                public LockProvider newClient(LockOptions options) {
                    return MemoryLockProvider.builder()
                            .server(server)
                            .options(options)
                            .build();
                }
            };
        }
    }

    private static boolean loadable(String className) {
        try {
            Class.forName(className, false, WithoutOptionalDependenciesMain.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** {@code succeeded/failed/total} of a test class's tests. */
    private static String run(String testClass) {
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(
                LauncherDiscoveryRequestBuilder.request()
                        .selectors(selectClass(testClass))
                        .build(),
                listener);
        TestExecutionSummary s = listener.getSummary();
        s.getFailures().forEach(f -> System.err.println(testClass + " failed: " + f.getException()));
        return s.getTestsSucceededCount() + "/" + s.getTotalFailureCount() + "/" + s.getTestsFoundCount();
    }

    interface Action {
        void run() throws Exception;
    }

    /** The exception's class and message (one line), or {@code none}. */
    private static String failure(Action a) {
        try {
            a.run();
            return "none";
        } catch (Exception | LinkageError e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static void report(String key, Object value) {
        System.out.println(key + "=" + String.valueOf(value).replace('\n', ' '));
        System.out.flush();
    }
}
