package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UriParametersRedactTest {
    @Test
    void redact_userAndPassword_masksPasswordKeepsUser() {
        assertThat(UriParameters.redact("redis://app:s3cret@h:1/0?x=1")).isEqualTo("redis://app:****@h:1/0?x=1");
    }

    @Test
    void redact_loneUserInfo_masked() {
        assertThat(UriParameters.redact("redis://s3cret@h:1")).isEqualTo("redis://****@h:1");
        assertThat(UriParameters.redact("redis://h:1/path?a=b@c")).isEqualTo("redis://h:1/path?a=b@c");
    }

    @Test
    void redact_passwordParameters_masked() {
        assertThat(UriParameters.redact("zk://h:1?tlsTrustStorePassword=s3cret&pwd=x&b=1"))
                .isEqualTo("zk://h:1?tlsTrustStorePassword=****&pwd=****&b=1");
    }
}
