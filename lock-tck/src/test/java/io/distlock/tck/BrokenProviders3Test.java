package io.distlock.tck;

/** Share 3 of {@link BrokenProvidersTest}'s broken providers. */
class BrokenProviders3Test extends BrokenProvidersTest {
    @Override
    int shard() {
        return 3;
    }
}
