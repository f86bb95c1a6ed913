package io.distlock.spring.boot;

import io.distlock.LockOptions;

/**
 * A bean that adjusts the {@link LockOptions} of the auto-configured {@link
 * io.distlock.LockProvider}, after the URI's parameters and the {@code distlock.*} properties (and
 * after the Micrometer observer is set). Customizers run in {@link
 * org.springframework.core.annotation.Order} order. To add an observer, compose it with {@code
 * options.observer()} so that metrics keep being recorded.
 */
@FunctionalInterface
public interface LockOptionsCustomizer {

    /** Returns the options to use; never {@code null}. */
    LockOptions customize(LockOptions options);
}
