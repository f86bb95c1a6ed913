package io.distlock.tck;

/** Share 1 of {@link BrokenProvidersTest}'s broken providers. */
class BrokenProviders1Test extends BrokenProvidersTest {
    @Override
    int shard() {
        return 1;
    }
}
