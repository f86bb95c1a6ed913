/**
 * Benchmarks, probes and A/B harnesses, one package per backend ({@code io.distlock.bench.redis},
 * {@code .redlock}, {@code .zookeeper}, {@code .etcd}, {@code .mysql}, {@code .engine}). Every class
 * here is named {@code *Bench}, has a {@code main} that starts its own servers and writes its results
 * as JSON, and is run with {@code ./distlock bench <ClassName> [args]}; the class javadoc gives the
 * arguments. Not shipped, not run in CI.
 */
package io.distlock.bench;
