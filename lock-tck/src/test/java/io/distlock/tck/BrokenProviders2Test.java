package io.distlock.tck;

/** Share 2 of {@link BrokenProvidersTest}'s broken providers. */
class BrokenProviders2Test extends BrokenProvidersTest {
    @Override
    int shard() {
        return 2;
    }
}
