/**
 * Fault injection for tests: bounded, self-undoing {@link io.distlock.tck.faults.Fault}s on
 * servers (kill, pause, restart), a {@link io.distlock.tck.faults.TcpProxy} that delays, blackholes
 * and cuts connections, and {@link io.distlock.tck.faults.ChildJvmLockClient}, a lock holder in
 * another JVM that can be killed or frozen.
 */
package io.distlock.tck.faults;
