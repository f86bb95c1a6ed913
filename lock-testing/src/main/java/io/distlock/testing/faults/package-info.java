/**
 * Fault injection for tests: bounded, self-undoing {@link io.distlock.testing.faults.Fault}s on
 * servers (kill, pause, restart), a {@link io.distlock.testing.faults.TcpProxy} that delays, blackholes
 * and cuts connections, and {@link io.distlock.testing.faults.ChildJvmLockClient}, a lock holder in
 * another JVM that can be killed or frozen.
 */
package io.distlock.testing.faults;
