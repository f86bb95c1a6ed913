/** Micrometer metrics for distlock through {@link io.distlock.micrometer.MicrometerLockObserver}. */
package io.distlock.micrometer;
