package io.distlock.testing.servers;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/** A server run as a supervised local process in its own directory, on a fixed port. */
final class ServerProcess implements TestServer {
    static final String HOST = "127.0.0.1";

    interface Probe {
        boolean ready(ServerProcess server) throws Exception;
    }

    interface Hook {
        void run(ServerProcess server) throws Exception;
    }

    private final String kind;
    private final Path dir;
    private final int port;
    private final Function<ServerProcess, List<String>> command;
    private final Probe probe;
    private final Hook prepare;
    private final Hook afterReady;
    private final Duration startTimeout;
    private final Map<String, String> env;
    private volatile SupervisedProcess process;
    private volatile boolean closed;
    private volatile boolean prepared;

    ServerProcess(
            String kind,
            Path dir,
            int port,
            Function<ServerProcess, List<String>> command,
            Probe probe,
            Hook prepare,
            Hook afterReady,
            Duration startTimeout,
            Map<String, String> env) {
        this.kind = kind;
        this.dir = dir;
        this.port = port;
        this.command = command;
        this.probe = probe;
        this.prepare = prepare;
        this.afterReady = afterReady;
        this.startTimeout = startTimeout;
        this.env = env;
    }

    /**
     * Starts servers made by {@code factory} until one starts; a new attempt (with new ports) is
     * made when the failed one's log says its address was in use.
     */
    static ServerProcess startWithRetry(Supplier<ServerProcess> factory) {
        ServerStartException failure = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            ServerProcess s = factory.get();
            try {
                s.start();
                return s;
            } catch (ServerStartException e) {
                String log = s.process == null ? "" : s.process.logTail(4000);
                s.close();
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
                if (!log.contains("in use") && !log.contains("EADDRINUSE")) {
                    throw failure;
                }
            }
        }
        throw failure;
    }

    String kind() {
        return kind;
    }

    Path dir() {
        return dir;
    }

    synchronized void start() {
        launch();
        awaitReady();
    }

    /** Prepares the directory if needed and starts the process, without waiting for it. */
    synchronized void launch() {
        if (closed) {
            throw new IllegalStateException(kind + " on port " + port + " is closed");
        }
        try {
            if (!prepared && prepare != null) {
                prepare.run(this);
            }
            prepared = true;
            process = SupervisedProcess.start(
                    kind + ":" + port, command.apply(this), dir, dir.resolve("server.log"), false, dir, env);
        } catch (ServerStartException e) {
            throw e;
        } catch (Exception e) {
            throw new ServerStartException("cannot start " + kind + " on " + address() + ": " + e, e);
        }
    }

    /** Waits until the probe answers, then runs the after-ready hook. */
    void awaitReady() {
        SupervisedProcess p = process;
        Probes.await(kind + " on " + address(), startTimeout, p, () -> probe.ready(this));
        try {
            if (afterReady != null) {
                afterReady.run(this);
            }
        } catch (ServerStartException e) {
            throw e;
        } catch (Exception e) {
            throw new ServerStartException("cannot set up " + kind + " on " + address() + ": " + e, e);
        }
    }

    SupervisedProcess process() {
        return process;
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public long pid() {
        SupervisedProcess p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException(kind + " on " + address() + " is not running");
        }
        return p.pid();
    }

    @Override
    public boolean isRunning() {
        SupervisedProcess p = process;
        return p != null && p.isAlive();
    }

    @Override
    public void kill() {
        SupervisedProcess p = process;
        if (p != null) {
            p.kill();
        }
    }

    @Override
    public void pause() {
        requireRunning().pause();
    }

    @Override
    public void resume() {
        requireRunning().resume();
    }

    private SupervisedProcess requireRunning() {
        SupervisedProcess p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException(kind + " on " + address() + " is not running");
        }
        return p;
    }

    @Override
    public synchronized void restart(boolean keepData) {
        kill();
        if (!keepData) {
            ServerDirs.emptyDir(dir);
            prepared = false;
        }
        start();
    }

    @Override
    public synchronized void close() {
        closed = true;
        kill();
        ServerDirs.deleteQuietly(dir);
    }

    String logTail() {
        SupervisedProcess p = process;
        return p == null ? "(not started)" : p.logTail(3000);
    }

    @Override
    public String toString() {
        SupervisedProcess p = process;
        return kind + "@" + address() + (p == null ? "" : " pid " + p.pid());
    }
}
