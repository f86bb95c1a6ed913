/**
 * The side-by-side comparison: the same scenarios (uncontended latency, contended throughput,
 * hand-off latency, many names, renewal traffic, raw round-trip floor) through every backend and
 * peer, with results as objects and as JSON, Markdown and HTML. {@code ./distlock compare} runs it
 * against real servers; a JUnit test can run it for its own backend next to ours.
 */
package io.distlock.compare;
