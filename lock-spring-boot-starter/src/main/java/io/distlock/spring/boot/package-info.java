/**
 * Spring Boot auto-configuration for distlock: a {@link io.distlock.LockProvider} bean from {@code
 * distlock.url}, a health indicator, Micrometer metrics and {@link io.distlock.spring.Locked}
 * methods.
 */
package io.distlock.spring.boot;
