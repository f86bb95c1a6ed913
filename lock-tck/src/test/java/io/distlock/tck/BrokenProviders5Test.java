package io.distlock.tck;

/** Share 5 of {@link BrokenProvidersTest}'s broken providers. */
class BrokenProviders5Test extends BrokenProvidersTest {
    @Override
    int shard() {
        return 5;
    }
}
