package io.distlock.nemesis;

import io.distlock.Capabilities;
import io.distlock.LockProvider;
import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.TcpProxy;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs one backend through a profile: starts its servers ({@link Topology}) and the lock clients
 * (child JVMs), checks that parent and children read one monotonic clock, records a baseline, then
 * injects each applicable fault in turn — each bounded in time and undone — waiting after each for
 * the system to accept writes again, and finally hands everything to the {@link Checker}. A soak
 * profile adds a {@link SoakRun}: lock threads per client, per-minute samples, its own verdict.
 */
final class Nemesis {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Profile profile;
    private final Resource resource;
    private final String classPath;
    private final Consumer<String> log;
    private final Path historyDir;
    /** The soak's part of the run; null for the fault profiles. */
    private final SoakRun soak;

    private final List<Event> events = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger writesOk = new AtomicInteger();
    private volatile long lastWriteOk = Long.MIN_VALUE;
    /** When each holding was acquired (by hold key), for the recovery condition. */
    private final java.util.Map<String, Long> acquiredAt = new java.util.concurrent.ConcurrentHashMap<>();
    /** Accepted writes as {time, time the writer's holding was acquired}, in arrival order. */
    private final List<long[]> okWrites = Collections.synchronizedList(new ArrayList<>());

    private final List<ClientProcess> clients = new CopyOnWriteArrayList<>();
    private final List<ClientProcess> retired = new CopyOnWriteArrayList<>();
    private int nextClient;
    private long leaseMs;
    /** Starts and stops client JVMs in parallel; threads named, daemon, one per task. */
    private final java.util.concurrent.Executor workers = task -> {
        Thread t = new Thread(task, "distlock-nemesis-worker");
        t.setDaemon(true);
        t.start();
    };

    Nemesis(Profile profile, Resource resource, String classPath, Path historyDir, Consumer<String> log) {
        this.profile = profile;
        this.historyDir = historyDir;
        this.resource = resource;
        this.classPath = classPath;
        this.log = log;
        this.soak = profile.soak().on() ? new SoakRun(profile) : null;
    }

    /** The soak verdict of the last {@link #run}, or null if the profile is not a soak. */
    SoakResults.Backend soakResult() {
        return soak == null ? null : soak.result();
    }

    /** Runs {@code backend} ({@link Topology#BACKENDS}, or {@code broken}) and checks it. */
    Results.Backend run(String backend) throws SQLException, InterruptedException {
        long leaseMs = profile.leaseMs();
        boolean broken = backend.equals("broken");
        long t0 = System.nanoTime();
        log.accept(backend + ": starting servers");
        try (Topology topo = broken ? new BrokenTopology(leaseMs) : Topology.open(backend, leaseMs)) {
            Capabilities caps = topo instanceof BrokenTopology b ? b.capabilities() : capabilities(topo);
            leaseMs = topo.leaseMs;
            this.leaseMs = leaseMs;
            String account = backend + "-" + Long.toHexString(System.nanoTime());
            resource.openAccount(account);
            ClientProcess.Spec spec = new ClientProcess.Spec(
                    null,
                    topo.lockName(),
                    resource.jdbcUrl(),
                    resource.user(),
                    resource.password(),
                    account,
                    2 * leaseMs,
                    profile.workMs(),
                    broken,
                    profile.soak().threadsPerClient());
            try {
                log.accept(backend + ": starting " + profile.clients() + " clients");
                List<CompletableFuture<ClientProcess>> starting = new ArrayList<>();
                for (int i = 0; i < profile.clients(); i++) {
                    starting.add(CompletableFuture.supplyAsync(() -> startClient(topo, spec), workers));
                }
                for (CompletableFuture<ClientProcess> f : starting) {
                    clients.add(f.join());
                }
                String clock = ClockCheck.check(clients, 5);
                long start = System.nanoTime();
                if (soak != null) {
                    soak.start(topo, List.copyOf(clients), () -> List.copyOf(clients), start);
                }
                List<Results.Window> windows = new ArrayList<>();
                windows.add(new Results.Window("baseline", "no fault", "none", start, start, "", false));
                awaitWrites(profile.settleWrites(), profile.recoveryTimeout());
                long until = start + profile.perBackend().toNanos();
                // faults that leave the servers changed for good (a failover without its replica
                // back, a token counter reset) run once, after the cycles of the others
                List<FaultKind> faults = topo.faults();
                List<FaultKind> cycled = soak != null
                        ? soak.cycled(topo, faults)
                        : faults.stream().filter(topo::repeatable).toList();
                List<FaultKind> last = soak != null
                        ? List.of()
                        : faults.stream().filter(k -> !topo.repeatable(k)).toList();
                do {
                    for (FaultKind kind : cycled) {
                        if (soak != null && System.nanoTime() - until >= 0) {
                            break; // a soak ends on time, wherever it is in the cycle
                        }
                        windows.add(inject(topo, spec, kind));
                        gap();
                    }
                } while (!cycled.isEmpty() && System.nanoTime() < until);
                for (FaultKind kind : last) {
                    windows.add(inject(topo, spec, kind));
                    gap();
                }
                if (soak != null) {
                    soak.stop(clients);
                }
                log.accept(backend + ": stopping clients");
                stopClients();
                long end = System.nanoTime();
                List<Event> snapshot;
                synchronized (events) {
                    snapshot = new ArrayList<>(events);
                }
                if (historyDir != null) {
                    HistoryLog.write(historyDir.resolve("history-" + backend + ".log"), snapshot, windows);
                }
                Checker.Input input = new Checker.Input(
                        backend,
                        topo.describe(),
                        caps.fencing().name(),
                        caps.failover().name(),
                        caps.fencing().present(),
                        caps.failover() == Capabilities.Failover.MAY_GRANT_TWICE,
                        profile.clients() * profile.soak().threadsPerClient(),
                        leaseMs,
                        t0,
                        end,
                        clock,
                        snapshot,
                        windows,
                        resource.writes(account),
                        resource.balance(account));
                Results.Backend checked = Checker.check(input);
                if (soak != null) {
                    soak.check(input, checked, start, cycled);
                }
                return checked;
            } finally {
                for (ClientProcess c : clients) {
                    c.close();
                }
                for (ClientProcess c : retired) {
                    c.close();
                }
                if (soak != null) {
                    soak.close();
                }
            }
        }
    }

    /** The backend's declared capabilities, from a provider opened like a client's (with its retries). */
    private static Capabilities capabilities(Topology topo) throws InterruptedException {
        List<AutoCloseable> extra = new ArrayList<>();
        try (LockProvider p = NemesisClientMain.openProvider(topo.uri(topo.nodes()), extra)) {
            return p.capabilities();
        } finally {
            for (AutoCloseable c : extra) {
                try {
                    c.close();
                } catch (Exception e) {
                    // best effort
                }
            }
        }
    }

    private ClientProcess startClient(Topology topo, ClientProcess.Spec spec) {
        String id;
        synchronized (this) {
            id = "c" + (++nextClient);
        }
        String uri = spec.broken() ? "broken://" : topo.clientUri(id);
        ClientProcess.Spec mine = new ClientProcess.Spec(
                uri,
                spec.lock(),
                spec.jdbcUrl(),
                spec.user(),
                spec.password(),
                spec.account(),
                spec.maxWaitMs(),
                spec.workMs(),
                spec.broken(),
                spec.threads());
        ClientProcess c = ClientProcess.start(id, mine, classPath, this::record, START_TIMEOUT);
        if (soak != null) {
            soak.started(c);
        }
        return c;
    }

    private void record(Event e) {
        events.add(e);
        if (e.type().equals("ACQUIRED")) {
            acquiredAt.put(e.holdKey(), e.nanos());
        }
        if (e.type().equals("WRITE_OK")) {
            Long acquired = acquiredAt.get(e.holdKey());
            okWrites.add(new long[] {e.nanos(), acquired == null ? Long.MIN_VALUE : acquired});
            lastWriteOk = e.nanos();
            writesOk.incrementAndGet();
        }
    }

    /**
     * Whether the resource accepted a write at or after {@code undone} from a holding acquired after
     * {@code injected}: the {@link Checker}'s recovery (a frozen old holder's late write does not count).
     */
    private boolean recovered(long injected, long undone) {
        synchronized (okWrites) {
            for (int i = okWrites.size() - 1; i >= 0; i--) {
                long[] w = okWrites.get(i);
                if (undone - w[0] > 60_000_000_000L) {
                    break; // arrival order is time order within a client; a minute covers the others
                }
                if (w[0] >= undone && w[1] != Long.MIN_VALUE && w[1] > injected) {
                    return true;
                }
            }
        }
        return false;
    }

    private Results.Window inject(Topology topo, ClientProcess.Spec spec, FaultKind kind) throws InterruptedException {
        long lease = leaseMs;
        // long enough for the lease to run out and another client to acquire and write: 2.5 leases,
        // at most a lease + 3 s (the 10 s Sentinel lease)
        Duration pastLease = Duration.ofMillis(Math.min(lease * 5 / 2, lease + 3000));
        String note = "";
        long injected;
        long undone;
        ClientProcess frozen = null;
        log.accept(topo.name() + ": " + kind.id());
        switch (kind) {
            case PAUSE_HOLDER, PARTITION_HOLDER, KILL_HOLDER -> {
                // a soak kills only the clients it does not keep for the whole run
                ClientProcess holder = awaitHolder(
                        Long.MIN_VALUE, kind == FaultKind.KILL_HOLDER && soak != null ? soak::killable : c -> true);
                if (holder == null) {
                    note = "no holder seen within " + profile.recoveryTimeout().toSeconds() + " s: fault skipped";
                    injected = System.nanoTime();
                    undone = injected;
                    break;
                }
                note = "target " + holder.id();
                injected = System.nanoTime();
                if (kind == FaultKind.KILL_HOLDER) {
                    // stop it where it holds the lock and has not written (it may have moved on since
                    // it was seen), so the SIGKILL kills a holder
                    if (!holder.park(profile.recoveryTimeout())) {
                        note += " (not seen holding again: killed anyway)";
                    }
                    injected = System.nanoTime();
                    holder.kill();
                    undone = System.nanoTime();
                    clients.remove(holder);
                    retired.add(holder);
                    topo.dropClient(holder.id());
                    clients.add(startClient(topo, spec));
                } else if (kind == FaultKind.PAUSE_HOLDER) {
                    frozen = holder;
                    try (Fault f = Fault.inject("pause-" + holder.id(), holder::pause, holder::resume, pastLease)) {
                        hold(pastLease);
                    }
                    undone = System.nanoTime();
                } else {
                    List<TcpProxy> ps = topo.proxiesOf(holder.id());
                    try (Fault f = Fault.inject(
                            "partition-" + holder.id(),
                            () -> ps.forEach(p -> p.blackhole(TcpProxy.Direction.BOTH)),
                            () -> ps.forEach(TcpProxy::resume),
                            pastLease)) {
                        hold(pastLease);
                    }
                    undone = System.nanoTime();
                }
            }
            case RESET_CONNECTIONS -> {
                injected = System.nanoTime();
                int cut = topo.allProxies().stream()
                        .mapToInt(TcpProxy::cutConnections)
                        .sum();
                undone = System.nanoTime();
                note = cut + " connections reset";
            }
            case LATENCY -> {
                List<TcpProxy> ps = topo.allProxies();
                Duration d = Duration.ofMillis(Math.min(lease * 2, lease + 3000));
                injected = System.nanoTime();
                try (Fault f = Fault.inject(
                        "latency",
                        () -> ps.forEach(p -> p.setLatency(TcpProxy.Direction.BOTH, Duration.ofMillis(200))),
                        () -> ps.forEach(p -> p.setLatency(TcpProxy.Direction.BOTH, Duration.ZERO)),
                        d.plusSeconds(5))) {
                    hold(d);
                }
                undone = System.nanoTime();
            }
            case SLOT_MIGRATION -> {
                // the slot moves under a holder (not frozen): its renewals, its release and the
                // others' tries meet ASK and TRYAGAIN while the keys are on both sides
                ClientProcess holder = awaitHolder(Long.MIN_VALUE, c -> true);
                note = holder == null ? "no holder seen" : "while " + holder.id() + " held the lock";
                injected = System.nanoTime();
                topo.serverFault(kind, Duration.ofSeconds(60)).close(); // the move runs as it is applied
                undone = System.nanoTime();
            }
            case REDIS_FAILOVER, CLUSTER_FAILOVER, RESTART_NODES_WITHOUT_DATA, RESTART_SERVER_LOSE_DATA -> {
                // while a holder is frozen before its write: a second grant is possible, and the
                // holder's late write must then be fenced off
                long prepared = topo.prepare(kind);
                ClientProcess holder = awaitHolder(prepared, c -> true);
                note = holder == null ? "no holder seen" : "while " + holder.id() + " held the lock (paused)";
                injected = System.nanoTime();
                if (holder != null) {
                    frozen = holder;
                    holder.pause();
                }
                try {
                    try (Fault f = topo.serverFault(kind, Duration.ofSeconds(30))) {
                        // keep the holder frozen until another client has written after the fault
                        // (then its late write must be rejected), or past its lease
                        long applied = System.nanoTime();
                        await(() -> lastWriteOk >= applied, pastLease);
                    }
                } finally {
                    if (holder != null) {
                        holder.resume();
                    }
                }
                undone = System.nanoTime();
            }
            default -> {
                Duration d = Duration.ofMillis(lease * 3 / 2);
                injected = System.nanoTime();
                try (Fault f = topo.serverFault(kind, d.plusSeconds(30))) {
                    hold(d);
                }
                undone = System.nanoTime();
            }
        }
        if (frozen != null) {
            // let the resumed holder make its late write before the next fault picks a target
            ClientProcess f = frozen;
            await(() -> !f.isAboutToWrite(), profile.recoveryTimeout());
        }
        long before = writesOk.get();
        long injectedAt = injected;
        boolean recovered = await(() -> recovered(injectedAt, undone), profile.recoveryTimeout());
        if (!recovered) {
            note = (note.isEmpty() ? "" : note + "; ") + "no write by a client granted the lock after the fault"
                    + " began within " + profile.recoveryTimeout().toSeconds() + " s after the fault";
        } else {
            awaitWrites(before + profile.settleWrites() - writesOk.get(), profile.recoveryTimeout());
        }
        return new Results.Window(
                kind.id(), topo.describe(kind), kind.column(), injected, undone, note, kind.losesData());
    }

    private void gap() {
        if (profile.minGap().toNanos() > 0) {
            hold(profile.minGap());
        }
    }

    /** The fault's own duration: the schedule, not a wait for something to settle. */
    private static void hold(Duration d) {
        long end = System.nanoTime() + d.toNanos();
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    /**
     * A client among {@code eligible} that holds the lock, acquired at or after {@code acquiredSince},
     * and has not written yet.
     */
    private ClientProcess awaitHolder(long acquiredSince, java.util.function.Predicate<ClientProcess> eligible)
            throws InterruptedException {
        ClientProcess[] found = new ClientProcess[1];
        await(
                () -> {
                    for (ClientProcess c : clients) {
                        if (eligible.test(c)
                                && c.isAboutToWrite()
                                && (acquiredSince == Long.MIN_VALUE || c.acquiredAt() - acquiredSince >= 0)) {
                            found[0] = c;
                            return true;
                        }
                    }
                    return false;
                },
                profile.recoveryTimeout());
        return found[0];
    }

    private void awaitWrites(long count, Duration timeout) throws InterruptedException {
        long target = writesOk.get() + Math.max(0, count);
        await(() -> writesOk.get() >= target, timeout);
    }

    private static boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(2);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return true;
    }

    private void stopClients() {
        List<CompletableFuture<Void>> stops = new ArrayList<>();
        for (ClientProcess c : clients) {
            stops.add(CompletableFuture.runAsync(() -> c.stop(Duration.ofSeconds(15)), workers));
        }
        stops.forEach(CompletableFuture::join);
    }

    /** A deliberately broken "backend" for proving the checker: no servers, every request granted. */
    static final class BrokenTopology extends Topology {
        BrokenTopology(long leaseMs) {
            super(leaseMs);
        }

        Capabilities capabilities() {
            // it claims fencing, as a buggy backend would
            return Capabilities.builder()
                    .fencing(Capabilities.Fencing.MONOTONIC_PER_LOCK)
                    .build();
        }

        @Override
        String name() {
            return "broken";
        }

        @Override
        String describe() {
            return "no server: every client is granted the lock at once, always with token 1";
        }

        @Override
        boolean proxied() {
            return false;
        }

        @Override
        List<FaultKind> faults() {
            return List.of(FaultKind.PAUSE_HOLDER);
        }

        @Override
        List<String> nodes() {
            return List.of();
        }

        @Override
        String uri(List<String> addresses) {
            return "broken://";
        }

        @Override
        protected void closeServers() {}
    }
}
