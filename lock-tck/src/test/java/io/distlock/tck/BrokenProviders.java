package io.distlock.tck;

import java.util.Set;

/**
 * The TCK run against deliberately broken providers, one bug each. These classes are not run by
 * surefire directly (their names do not end in {@code Test}); {@link BrokenProvidersTest} launches
 * each one and checks that it fails exactly the rules that should catch its bug.
 */
final class BrokenProviders {
    private BrokenProviders() {}

    /** Release deletes the lock whoever owns it (no compare-and-delete). */
    static final class ReleaseIgnoresOwnerTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.RELEASE_IGNORES_OWNER));
        }
    }

    /** The server ignores the TTL: an abandoned lock is held forever. */
    static final class NoTtlTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.NO_TTL));
        }
    }

    /** Renewal extends, or re-creates, the lock whoever owns it. */
    static final class RenewIgnoresOwnerTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.RENEW_IGNORES_OWNER));
        }
    }

    /** Fencing tokens come from a per-client counter: they repeat and go backwards across clients. */
    static final class ClientSideTokensTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.CLIENT_SIDE_TOKENS));
        }
    }

    /** Leases keep reporting valid after they were lost. */
    static final class ValidAfterLostTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.VALID_AFTER_LOST));
        }
    }

    /** The server key drops invisible format characters, so names differing only in them collide. */
    static final class FormatCharactersDroppedTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.KEY_DROPS_FORMAT_CHARACTERS));
        }
    }

    /** A refused password is reported as an outage (BackendUnavailableException), so it is retried. */
    static final class AuthFailureAsOutageTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.AUTH_FAILURE_AS_UNAVAILABLE));
        }
    }
}
