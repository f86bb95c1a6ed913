package io.distlock.tck;

/**
 * A group of TCK rules: one section of {@code SPEC.md}, as JUnit 5 {@code @Test} default methods.
 * {@link LockProviderTck} implements every group, so a backend runs them all with one {@code
 * extends LockProviderTck}; the groups exist to keep each section's rules, and the helpers only
 * they use, together.
 *
 * <p>Every rule method is named {@code tck_<section>_<n>_<subject>_<condition>_<expectation>}, its
 * {@code @DisplayName} and its failure messages start with the rule id, and its javadoc says what
 * to check if it fails.
 */
public interface RuleGroup {

    /**
     * The fixture, clients, timing and helpers the rules run on (one per TCK instance).
     * Implemented by {@link LockProviderTck}.
     */
    TckSupport support();
}
