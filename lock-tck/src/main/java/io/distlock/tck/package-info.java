/**
 * The distlock TCK: {@link io.distlock.tck.LockProviderTck} (the class a backend's TCK test
 * extends; it implements one {@link io.distlock.tck.RuleGroup} per section of SPEC.md, backed by
 * {@link io.distlock.tck.TckSupport}), {@link io.distlock.tck.TckFixture} (what a backend supplies)
 * and {@link io.distlock.tck.TckReportExtension} (the compatibility report). See the module's
 * README and SPEC.md for the rule catalogue.
 */
package io.distlock.tck;
