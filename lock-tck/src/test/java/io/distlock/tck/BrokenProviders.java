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

    /** The validity deadline is counted from the reply instead of from before the request. */
    static final class ValidityFromReplyTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.VALIDITY_FROM_REPLY));
        }
    }

    /** The first refused renewal is taken for an outage: the lease outlives its loss by a renewal. */
    static final class RefusedRenewalTakenForOutageTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.REFUSED_RENEWAL_TAKEN_FOR_OUTAGE));
        }
    }

    /** Declares notification wake-up, but waiters poll every 100 ms. */
    static final class PollsWhileDeclaringNotificationTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.POLLS_WHILE_DECLARING_NOTIFICATION));
        }
    }

    /** A heartbeat thread not named distlock-* keeps running after close(). */
    static final class ThreadLeftAfterCloseTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.THREAD_LEFT_AFTER_CLOSE));
        }
    }

    /** The server key is the lock name cut to 191 characters. */
    static final class NameCutTo191CharactersTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.NAME_CUT_TO_191_CHARACTERS));
        }
    }

    /** A renewal sets half the lease time on the server. */
    static final class RenewalSetsShorterTtlTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.RENEWAL_SETS_SHORTER_TTL));
        }
    }

    /** Declares fifo without queueing waiters. */
    static final class FifoDeclaredWithoutQueueTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.FIFO_DECLARED_WITHOUT_QUEUE));
        }
    }

    /** A wait does not re-check the lock, so a release just before it is missed. */
    static final class LostWakeUpTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.LOST_WAKE_UP));
        }
    }

    /** Declares tokens that survive a restart, but the counter starts again. */
    static final class TokensResetOnRestartTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.TOKENS_RESET_ON_RESTART));
        }
    }

    /** Renewals after an extension set the attempt's lease time again: the extension is forgotten. */
    static final class RenewalForgetsExtensionTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.RENEWAL_FORGETS_EXTENSION));
        }
    }

    /** releaseAfter answers true even when the server found the lock owned by another client. */
    static final class ReleaseAfterAnswersTrueTck extends LockProviderTck {
        @Override
        protected TckFixture createFixture() {
            return new ToyTckFixture(Set.of(ToyDriver.Bug.RELEASE_AFTER_ANSWERS_TRUE));
        }
    }
}
