package io.distlock.spring;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockException;
import io.distlock.LockProvider;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * Acquires the lock of a {@link Locked} method around the call; see {@link Locked} for the
 * contract. Registered by {@link LockedAdvisor}, which orders it outside the transaction.
 */
public final class LockedMethodInterceptor implements MethodInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(LockedMethodInterceptor.class);
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    private static final boolean TX_PRESENT = ClassUtils.isPresent(
            "org.springframework.transaction.support.TransactionSynchronizationManager",
            LockedMethodInterceptor.class.getClassLoader());

    private final Supplier<LockProvider> provider;
    private final BeanFactory beanFactory;
    private final Map<Method, Plan> plans = new ConcurrentHashMap<>();

    /**
     * @param provider where the lock comes from; called on each invocation, so a lazily created
     *     provider works
     * @param beanFactory for {@code ${...}} placeholders and {@code @bean} references in names; may
     *     be {@code null}
     */
    public LockedMethodInterceptor(Supplier<LockProvider> provider, BeanFactory beanFactory) {
        this.provider = Objects.requireNonNull(provider, "provider must not be null");
        this.beanFactory = beanFactory;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null
                ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
        Plan plan = plans.computeIfAbsent(method, this::plan);
        if (plan == null) {
            return invocation.proceed();
        }
        String name = plan.name(method, invocation.getArguments(), target);
        LockProvider locks = Objects.requireNonNull(provider.get(), "no LockProvider for @Locked methods");
        DistributedLock lock = locks.lock(name);
        Optional<Lease> acquired;
        try {
            acquired = plan.wait.isZero() ? lock.tryAcquire() : lock.tryAcquire(plan.wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException(
                    "interrupted while waiting for the lock of " + plan.description, name, locks.backend(), e);
        }
        Lease lease = acquired.orElseThrow(
                () -> new LockNotAcquiredException(name, locks.backend(), plan.wait, plan.description));
        if (TX_PRESENT && TransactionRelease.releaseAfterCompletion(lease, plan.description)) {
            // a caller's transaction is active: the lease is released after it commits or rolls back
            return invocation.proceed();
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable t) {
            try {
                lease.release();
            } catch (RuntimeException e) {
                t.addSuppressed(e);
            }
            throw t;
        }
        if (!lease.release()) {
            throw new LeaseLostException(
                    "the lease was lost while " + plan.description + " ran; its work was not protected by the lock",
                    name,
                    locks.backend());
        }
        return result;
    }

    private Plan plan(Method method) {
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        if (locked == null) {
            return null;
        }
        String description = ClassUtils.getShortName(method.getDeclaringClass()) + "." + method.getName() + "(..)";
        String name = resolve(locked.name());
        String waitText = resolve(locked.maxWait()).trim();
        Duration wait;
        try {
            wait = waitText.equals("0") ? Duration.ZERO : DurationStyle.detectAndParse(waitText);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "@Locked(maxWait = \"" + locked.maxWait() + "\") on " + description
                            + " must be a duration such as 500ms, 2s or PT2S",
                    e);
        }
        if (wait.isNegative()) {
            throw new IllegalArgumentException(
                    "@Locked(maxWait = \"" + locked.maxWait() + "\") on " + description + " must not be negative");
        }
        Expression expression = null;
        if (isExpression(name)) {
            try {
                expression = PARSER.parseExpression(name);
            } catch (ParseException e) {
                throw new IllegalArgumentException(
                        "@Locked(name = \"" + locked.name() + "\") on " + description
                                + " is not a valid SpEL expression: " + e.getMessage(),
                        e);
            }
        }
        return new Plan(description, name, expression, wait);
    }

    /** The rule of {@link Locked#name()}: {@code #} or {@code '} makes a name an expression. */
    static boolean isExpression(String name) {
        return name.indexOf('#') >= 0 || name.indexOf('\'') >= 0;
    }

    private String resolve(String value) {
        if (beanFactory instanceof ConfigurableBeanFactory cbf && value.contains("${")) {
            String resolved = cbf.resolveEmbeddedValue(value);
            return resolved == null ? value : resolved;
        }
        return value;
    }

    private final class Plan {
        final String description;
        final String literal;
        final Expression expression;
        final Duration wait;

        Plan(String description, String literal, Expression expression, Duration wait) {
            this.description = description;
            this.literal = literal;
            this.expression = expression;
            this.wait = wait;
        }

        String name(Method method, Object[] args, Object target) {
            if (expression == null) {
                return literal;
            }
            MethodBasedEvaluationContext context =
                    new MethodBasedEvaluationContext(new Root(method, args, target), method, args, PARAMETER_NAMES);
            if (beanFactory != null) {
                context.setBeanResolver(new BeanFactoryResolver(beanFactory));
            }
            Object value = expression.getValue(context);
            if (value == null) {
                throw new IllegalArgumentException(
                        "@Locked(name = \"" + literal + "\") on " + description + " evaluated to null");
            }
            return value.toString();
        }
    }

    /** The SpEL root object: {@code method}, {@code args} and {@code target} of the call. */
    public static final class Root {
        private final Method method;
        private final Object[] args;
        private final Object target;

        Root(Method method, Object[] args, Object target) {
            this.method = method;
            this.args = args;
            this.target = target;
        }

        public Method getMethod() {
            return method;
        }

        public Object[] getArgs() {
            return args;
        }

        public Object getTarget() {
            return target;
        }
    }

    /** Kept apart so that spring-tx stays optional: loaded only when it is on the class path. */
    private static final class TransactionRelease {
        static boolean releaseAfterCompletion(Lease lease, String description) {
            if (!org.springframework.transaction.support.TransactionSynchronizationManager.isSynchronizationActive()) {
                return false;
            }
            LOG.debug(
                    "{} runs inside a caller's transaction; lock '{}' is released after that transaction completes",
                    description,
                    lease.lockName());
            org.springframework.transaction.support.TransactionSynchronizationManager.registerSynchronization(
                    new org.springframework.transaction.support.TransactionSynchronization() {
                        @Override
                        public void afterCompletion(int status) {
                            if (!lease.release()) {
                                LOG.warn(
                                        "lease of lock '{}' was lost before the transaction around {} completed;"
                                                + " its work was not protected by the lock",
                                        lease.lockName(),
                                        description);
                            }
                        }
                    });
            return true;
        }
    }
}
