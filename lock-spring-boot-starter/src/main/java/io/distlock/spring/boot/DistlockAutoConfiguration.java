package io.distlock.spring.boot;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.micrometer.MicrometerLockObserver;
import io.distlock.micrometer.MicrometerPoolMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * Creates the application's {@link LockProvider} from {@code distlock.url} with {@link
 * LockProviders#open(URI, java.util.function.UnaryOperator)}, unless the application defines its
 * own. Options are applied in this order: the URI's parameters, the {@code distlock.*} properties,
 * the Micrometer observer (when a {@link MeterRegistry} bean exists), then every {@link
 * LockOptionsCustomizer} bean. The provider is closed with the context, which releases the leases
 * it still holds and stops its threads.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@EnableConfigurationProperties(DistlockProperties.class)
public class DistlockAutoConfiguration {

    /** Order of the customizer that adds the Micrometer observer: before the application's own. */
    public static final int MICROMETER_CUSTOMIZER_ORDER = 0;

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "distlock", name = "url")
    public LockProvider distlockLockProvider(
            DistlockProperties properties, ObjectProvider<LockOptionsCustomizer> customizers) {
        URI uri;
        try {
            uri = new URI(properties.getUrl().trim());
        } catch (URISyntaxException e) {
            // LockProviders.open(String) gives the redacted message
            return LockProviders.open(properties.getUrl());
        }
        List<LockOptionsCustomizer> ordered = customizers.orderedStream().toList();
        return LockProviders.open(uri, options -> {
            LockOptions o = fromProperties(options, properties);
            for (LockOptionsCustomizer c : ordered) {
                o = c.customize(o);
                if (o == null) {
                    throw new IllegalStateException(c.getClass().getName() + " returned null LockOptions");
                }
            }
            return o;
        });
    }

    static LockOptions fromProperties(LockOptions options, DistlockProperties properties) {
        LockOptions.Builder b = options.mutate();
        if (properties.getLeaseTime() != null) {
            b.leaseTime(properties.getLeaseTime());
        }
        if (properties.getAutoRenew() != null) {
            b.autoRenew(properties.getAutoRenew());
        }
        if (properties.getMaxHoldTime() != null) {
            b.maxHoldTime(properties.getMaxHoldTime());
        }
        return b.build();
    }

    /** Records lock metrics in the application's {@link MeterRegistry}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, MicrometerLockObserver.class})
    @ConditionalOnBean(MeterRegistry.class)
    @ConditionalOnProperty(prefix = "distlock.metrics", name = "enabled", matchIfMissing = true)
    static class MicrometerConfiguration {

        @Bean
        @Order(MICROMETER_CUSTOMIZER_ORDER)
        LockOptionsCustomizer distlockMicrometerCustomizer(MeterRegistry registry, DistlockProperties properties) {
            MicrometerLockObserver observer = MicrometerLockObserver.builder(registry)
                    .maxLockNames(properties.getMetrics().getMaxLockNames())
                    .tagLockNames(properties.getMetrics().isTagLockNames())
                    .build();
            return options -> options.mutate().observer(observer).build();
        }

        /** Gauges of the provider's connection pool, for the backends that have one (the SQL backends). */
        @Bean
        SmartInitializingSingleton distlockPoolMetricsBinder(
                ObjectProvider<LockProvider> providers, MeterRegistry registry) {
            return () -> providers.ifAvailable(p -> MicrometerPoolMetrics.bind(p, registry));
        }
    }
}
