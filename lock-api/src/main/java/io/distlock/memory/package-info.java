/** The in-JVM provider ({@code mem://}), reference implementation of the contract and test aid. */
package io.distlock.memory;
