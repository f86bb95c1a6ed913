/**
 * {@link io.distlock.spring.Locked @Locked} methods for Spring: the annotation, its interceptor and
 * the advisor that puts the lock outside the transaction.
 */
package io.distlock.spring;
