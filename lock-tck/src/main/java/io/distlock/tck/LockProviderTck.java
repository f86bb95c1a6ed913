package io.distlock.tck;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The distlock TCK: the contract every {@link LockProvider} must meet, as JUnit 5 tests. A backend
 * proves itself by extending this class and supplying a {@link TckFixture}:
 *
 * <pre>{@code
 * class MyBackendTckIT extends LockProviderTck {
 *     protected TckFixture createFixture() {
 *         return new MyBackendFixture(); // starts a server, opens clients on it
 *     }
 * }
 * }</pre>
 *
 * <p>Each test verifies one rule with a stable id ({@code TCK-<section>.<n>}, see {@code SPEC.md}),
 * and its javadoc says what to check if it fails. The rules live in one {@link RuleGroup} per
 * section of {@code SPEC.md} ({@link BasicContractRules}, {@link WaitingRules}, {@link
 * ClosingRules}, {@link BadInputRules}, {@link MutualExclusionRules}, {@link OwnershipRules},
 * {@link ExpiryAndRenewalRules}, {@link LossNotificationRules}, {@link FencingRules}, {@link
 * ServerUnavailableRules}, {@link OperationsRules}, {@link ErrorRules}, {@link LeaseControlRules}); this class implements them
 * all, so one subclass runs every rule. Rules read {@link LockProvider#capabilities()}: a declared
 * capability is verified to work, an absent one to be reported by the API. A rule that needs a
 * fixture hook the fixture does not implement, or a capability the backend does not declare, is
 * skipped with the reason; {@link TckReportExtension} writes the outcome of every rule to {@code
 * target/tck-report/<backend>.md} and {@code .json}.
 *
 * <p>One fixture serves the whole class (it is opened before the first rule and closed after the
 * last); every client a rule opens through it is closed after the rule, and every background
 * thread a rule starts is interrupted and joined.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.MethodName.class)
@ExtendWith(TckReportExtension.class)
public abstract class LockProviderTck
        implements BasicContractRules,
                WaitingRules,
                ClosingRules,
                BadInputRules,
                MutualExclusionRules,
                OwnershipRules,
                ExpiryAndRenewalRules,
                LossNotificationRules,
                FencingRules,
                ServerUnavailableRules,
                OperationsRules,
                ErrorRules,
                LeaseControlRules {

    private final TckSupport support = new TckSupport(this::timing);
    private String backend;

    /** The fixture for this backend; called once, before the first rule. */
    protected abstract TckFixture createFixture();

    /** Lease lengths and tolerances; override for slow backends. */
    protected TckTiming timing() {
        return TckTiming.defaults();
    }

    /** The backend name for the report (the fixture's, once it is open). */
    public final String backendName() {
        return backend != null ? backend : getClass().getSimpleName();
    }

    @Override
    public final TckSupport support() {
        return support;
    }

    @BeforeAll
    final void openFixture() {
        support.openFixture(createFixture());
        backend = support.fixture().backend();
    }

    @AfterEach
    final void closeClients() throws InterruptedException {
        support.closeClients();
    }

    @AfterAll
    final void closeFixture() {
        support.closeFixture();
    }

    /** The fixture (open between the first and the last rule). */
    protected final TckFixture fixture() {
        return support.fixture();
    }

    /** A client with default options (30 s lease, renewed); closed after the rule. */
    protected final LockProvider client() {
        return support.client();
    }

    /** A client with {@link TckTiming#shortLease()} leases, renewed. */
    protected final LockProvider shortClient() {
        return support.shortClient();
    }

    /** A client with {@link TckTiming#shortLease()} leases and {@code autoRenew=false}. */
    protected final LockProvider noRenewClient() {
        return support.noRenewClient();
    }

    /** Opens a client through the fixture; the TCK closes it after the rule. */
    protected final LockProvider open(LockOptions options) {
        return support.open(options);
    }

    /** A lock name unique to this run and rule. */
    protected final String name(String tag) {
        return support.name(tag);
    }
}
