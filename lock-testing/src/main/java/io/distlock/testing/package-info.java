/**
 * The test kit for lock backends: real servers ({@code io.distlock.testing.servers}), fault injection
 * ({@code io.distlock.testing.faults}) and {@link io.distlock.testing.LogCapture}, which records what
 * a test's loggers wrote.
 */
package io.distlock.testing;
