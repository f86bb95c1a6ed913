/**
 * The distlock TCK: {@link io.distlock.tck.LockProviderTck} (the rules), {@link
 * io.distlock.tck.TckFixture} (what a backend supplies) and {@link
 * io.distlock.tck.TckReportExtension} (the compatibility report). See the module's README and
 * SPEC.md for the rule catalogue.
 */
package io.distlock.tck;
