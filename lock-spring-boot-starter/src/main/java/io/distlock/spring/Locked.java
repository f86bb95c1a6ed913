package io.distlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method only while holding the distributed lock {@link #name()}, taken through
 * the application's {@link io.distlock.LockProvider}.
 *
 * <p><b>Outside the transaction.</b> The interceptor ({@link LockedAdvisor}) is ordered before
 * Spring's transaction interceptor, so on a method that is also {@code @Transactional} the lock is
 * acquired <em>before</em> the transaction begins and released <em>after</em> it has committed (or
 * rolled back). The next holder therefore reads what the previous holder committed. The naive
 * order (a lock taken inside the transaction) releases the lock before the commit, and the next
 * holder can read the old row and overwrite the update: a lost update that no lock prevents. See
 * the module README for the ordering rule and how it meets {@code @EnableTransactionManagement(order
 * = ...)}.
 *
 * <p>If a transaction is already active when the method is called (the caller is transactional),
 * the lock is still released only after that transaction completes. Put {@code @Locked} on the
 * outermost method anyway: a transaction that read data before the lock was taken may work on a
 * snapshot older than the previous holder's commit.
 *
 * <p><b>Not acquired.</b> With the default {@code maxWait = "0"} the lock is tried once; otherwise
 * the interceptor waits up to {@link #maxWait()}. If the lock is not acquired the method does not run
 * and {@link LockNotAcquiredException} (a {@link io.distlock.LockTimeoutException}) is thrown. A
 * backend failure throws the provider's {@link io.distlock.LockException}.
 *
 * <p><b>Lost lease.</b> If the lease was lost while the method ran (renewal failed, session
 * expired), the method's work was not protected: the call ends with {@link
 * io.distlock.LeaseLostException} instead of the method's result (as {@link
 * io.distlock.DistributedLock#withLock}). Calls are not reentrant: a {@code @Locked} method that
 * calls another with the same lock name on the same thread does not acquire it again.
 *
 * <pre>{@code
 * @Locked(name = "'order-' + #orderId", maxWait = "2s")
 * @Transactional
 * public void ship(long orderId) { ... }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Locked {

    /**
     * The lock name. A name that contains {@code #} (a method argument such as {@code #orderId},
     * {@code #p0}, or a variable) or {@code '} (a string literal) is evaluated as a SpEL expression
     * over the method's arguments, for example {@code "'order-' + #orderId"}; {@code @beanName}
     * references work too. Any other name is used as written. Property placeholders ({@code
     * ${...}}) are resolved first. The result must be a valid lock name ({@link
     * io.distlock.LockNames}).
     */
    String name();

    /**
     * How long to wait for the lock (named {@code maxWait} because an annotation cannot have an
     * attribute {@code wait}: it would clash with {@link Object#wait()}), as a duration such as {@code 500ms}, {@code 2s}, {@code 1m}
     * or {@code PT2S} (property placeholders allowed). {@code "0"} (the default) tries once without
     * waiting.
     */
    String maxWait() default "0";
}
