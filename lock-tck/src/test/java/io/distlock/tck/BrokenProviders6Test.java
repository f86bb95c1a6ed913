package io.distlock.tck;

/** Share 6 of {@link BrokenProvidersTest}'s broken providers. */
class BrokenProviders6Test extends BrokenProvidersTest {
    @Override
    int shard() {
        return 6;
    }
}
