package io.distlock.tck;

/** Share 4 of {@link BrokenProvidersTest}'s broken providers. */
class BrokenProviders4Test extends BrokenProvidersTest {
    @Override
    int shard() {
        return 4;
    }
}
