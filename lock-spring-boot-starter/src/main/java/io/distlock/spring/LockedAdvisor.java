package io.distlock.spring;

import java.util.Objects;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;

/**
 * The advisor that applies {@link LockedMethodInterceptor} to {@link Locked} methods. Its {@link
 * #getOrder() order} decides where the lock sits among other advice; the default, {@link
 * #DEFAULT_ORDER}, is one step of 100 before Spring's transaction advisor at its default order
 * ({@link Ordered#LOWEST_PRECEDENCE}), so the lock is taken before the transaction begins and
 * released after it completes. An application that sets {@code
 * @EnableTransactionManagement(order = N)} must give this advisor an order below {@code N} ({@code
 * distlock.locked.order} in Spring Boot, which checks this at start-up).
 *
 * <p>Register it as an infrastructure bean ({@code @Role(BeanDefinition.ROLE_INFRASTRUCTURE)}) so
 * that the auto-proxy creator of {@code @EnableTransactionManagement} applies it; the Spring Boot
 * auto-configuration does this for you.
 */
public final class LockedAdvisor extends AbstractPointcutAdvisor {
    private static final long serialVersionUID = 1L;

    /** {@code Ordered.LOWEST_PRECEDENCE - 100}: outside a transaction advisor at its default order. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    private final transient LockedMethodInterceptor interceptor;
    private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, Locked.class, true);

    public LockedAdvisor(LockedMethodInterceptor interceptor, int order) {
        this.interceptor = Objects.requireNonNull(interceptor, "interceptor must not be null");
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
