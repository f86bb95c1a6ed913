package io.distlock.tck;

/** Share 7 of {@link BrokenProvidersTest}'s broken providers. */
class BrokenProviders7Test extends BrokenProvidersTest {
    @Override
    int shard() {
        return 7;
    }
}
