package io.distlock.testing.servers;

/** Run in a child JVM by {@link ProcessSupervisionIT}: starts a Redis, prints its pid and dir, waits. */
public final class OrphanProbeMain {
    private OrphanProbeMain() {}

    public static void main(String[] args) throws Exception {
        RedisServer redis = RedisServer.start();
        ServerProcess p = (ServerProcess) redis.delegate;
        System.out.println("STARTED " + redis.pid() + " " + p.dir());
        System.out.flush();
        // wait until killed (or stdin closes)
        while (System.in.read() != -1) {
            // ignore input
        }
        redis.close();
    }
}
