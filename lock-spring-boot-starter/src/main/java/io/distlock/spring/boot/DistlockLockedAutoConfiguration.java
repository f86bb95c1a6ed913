package io.distlock.spring.boot;

import io.distlock.LockProvider;
import io.distlock.spring.LockedAdvisor;
import io.distlock.spring.LockedMethodInterceptor;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.transaction.interceptor.TransactionInterceptor;

/**
 * Applies {@link io.distlock.spring.Locked @Locked} to beans: registers {@link LockedAdvisor} (an
 * infrastructure advisor with order {@code distlock.locked.order}) and an auto-proxy creator if
 * none exists yet. When spring-tx is present it
 * checks at start-up that every transaction advisor is ordered after (inside) the lock, and fails
 * the start-up otherwise: a lock released before the commit does not protect a read-modify-write.
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnBean(LockProvider.class)
@ConditionalOnProperty(prefix = "distlock.locked", name = "enabled", matchIfMissing = true)
@Import(DistlockLockedAutoConfiguration.ProxyCreatorRegistrar.class)
public class DistlockLockedAutoConfiguration {

    /** Bean name of the advisor. */
    public static final String ADVISOR_BEAN_NAME = "distlockLockedAdvisor";

    @Bean(name = ADVISOR_BEAN_NAME)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(LockedAdvisor.class)
    static LockedAdvisor distlockLockedAdvisor(
            ObjectProvider<LockProvider> provider, Environment environment, BeanFactory beanFactory) {
        // static and lazy: the advisor is created while bean post-processors are set up, before the
        // provider (or DistlockProperties) should be
        int order = Binder.get(environment)
                .bind("distlock.locked.order", Integer.class)
                .orElse(LockedAdvisor.DEFAULT_ORDER);
        return new LockedAdvisor(new LockedMethodInterceptor(provider::getObject, beanFactory), order);
    }

    /** Fails the start-up if a transaction advisor would run outside the lock. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(TransactionInterceptor.class)
    static class TransactionOrderCheckConfiguration {

        @Bean
        static SmartInitializingSingleton distlockLockedTransactionOrderCheck(ListableBeanFactory beanFactory) {
            return () -> checkOrder(beanFactory);
        }
    }

    static void checkOrder(ListableBeanFactory beanFactory) {
        LockedAdvisor locked = null;
        for (Advisor a : beanFactory.getBeansOfType(Advisor.class, false, false).values()) {
            if (a instanceof LockedAdvisor la) {
                locked = la;
            }
        }
        if (locked == null) {
            return;
        }
        for (var e : beanFactory.getBeansOfType(Advisor.class, false, false).entrySet()) {
            Advisor a = e.getValue();
            if (a instanceof Ordered o && a.getAdvice() instanceof TransactionInterceptor) {
                if (o.getOrder() <= locked.getOrder()) {
                    throw new IllegalStateException("transaction advisor '" + e.getKey() + "' has order "
                            + o.getOrder() + ", which runs it outside @Locked (order " + locked.getOrder()
                            + "): the lock would be released before the transaction commits and the next"
                            + " holder could read stale data. Set distlock.locked.order below " + o.getOrder()
                            + " (or raise @EnableTransactionManagement(order = ...)).");
                }
            }
        }
    }

    /** Registers Spring's infrastructure auto-proxy creator unless one is there already. */
    static class ProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            // proxy-target-class is left to the application (Spring Boot's spring.aop.proxy-target-class)
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
