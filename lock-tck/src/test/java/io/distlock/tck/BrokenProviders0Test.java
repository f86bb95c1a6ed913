package io.distlock.tck;

/** Share 0 of {@link BrokenProvidersTest}'s broken providers. */
class BrokenProviders0Test extends BrokenProvidersTest {
    @Override
    int shard() {
        return 0;
    }
}
