package io.distlock.testing.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for test servers, chosen so that a server can be restarted on its port.
 *
 * <p>A restarted server must bind the port it had, so nothing else may take the port while the server
 * is down. Two things would: an outgoing connection given the port as its local (ephemeral) port — a
 * client reconnecting to the stopped server itself included, since a connect to a loopback port nobody
 * listens on can connect to itself — and another test JVM handed the port as free. Ports are therefore
 * picked below the kernel's ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}), where no
 * outgoing connection is given a port, and each is reserved for this JVM's life by an exclusive lock on
 * one byte of a shared lock file (the byte at the port's offset), which every test JVM on the machine
 * checks. The operating system drops the locks when the JVM exits, however it exits. Ports handed out in
 * this JVM are never handed out twice.
 */
final class Ports {
    /** Lowest port handed out: clear of well-known and registered services that a machine may run. */
    static final int LOWEST = 20000;

    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();
    private static final List<FileLock> RESERVED = new CopyOnWriteArrayList<>();
    private static final Object LOCK_FILE_GUARD = new Object();
    private static volatile FileChannel lockFile;

    private Ports() {}

    static int free() {
        int[] range = pickRange();
        for (int i = 0; i < 200; i++) {
            int port = range[0] + ThreadLocalRandom.current().nextInt(range[1] - range[0]);
            if (GIVEN.contains(port) || !bindable(port) || !reserve(port)) {
                continue;
            }
            if (GIVEN.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException(
                "no free port on 127.0.0.1 in [" + range[0] + ", " + range[1] + ") after 200 attempts");
    }

    /** The half-open range ports are picked from: below the ephemeral range, or above it if that is too small. */
    static int[] pickRange() {
        int[] ephemeral = ephemeralRange();
        if (ephemeral[0] - LOWEST >= 2000) {
            return new int[] {LOWEST, ephemeral[0]};
        }
        // etcd and ZooKeeper derive nothing from a port, but keep clear of the very top anyway
        if (65000 - (ephemeral[1] + 1) >= 2000) {
            return new int[] {ephemeral[1] + 1, 65000};
        }
        throw new IllegalStateException("the ephemeral port range " + ephemeral[0] + "-" + ephemeral[1]
                + " leaves fewer than 2000 ports for test servers; narrow net.ipv4.ip_local_port_range");
    }

    /** The kernel's ephemeral port range, or Linux's default where it cannot be read. */
    static int[] ephemeralRange() {
        try {
            String[] parts = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .trim()
                    .split("\\s+");
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (IOException | RuntimeException e) {
            return new int[] {32768, 60999};
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Takes the port's byte in the shared lock file for this JVM's life; false if another JVM has it. */
    static boolean reserve(int port) {
        try {
            FileLock lock = lockFile().tryLock(port, 1, false);
            if (lock == null) {
                return false;
            }
            RESERVED.add(lock);
            return true;
        } catch (OverlappingFileLockException e) {
            return false; // this JVM holds it already
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock the test port file for port " + port, e);
        }
    }

    private static FileChannel lockFile() throws IOException {
        FileChannel f = lockFile;
        if (f != null) {
            return f;
        }
        synchronized (LOCK_FILE_GUARD) {
            if (lockFile == null) {
                String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
                Path path = Path.of(System.getProperty("java.io.tmpdir"), "distlock-test-ports-" + user + ".lock");
                lockFile = FileChannel.open(
                        path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            }
            return lockFile;
        }
    }
}
