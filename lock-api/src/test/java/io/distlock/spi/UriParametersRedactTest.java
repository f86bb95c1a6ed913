package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UriParametersRedactTest {

    @Test
    void redact_userAndPassword_masksPasswordKeepsUser() {
        assertThat(UriParameters.redact("redis://app:s3cret@h:1/0?x=1")).isEqualTo("redis://app:****@h:1/0?x=1");
    }

    @Test
    void redact_passwordWithAtSignsAndColons_fullyMasked() {
        String s = UriParameters.redact("etcd://user:p@ss:w@rd@host:2379,other:2379/prefix/?x=1");
        assertThat(s)
                .isEqualTo("etcd://user:****@host:2379,other:2379/prefix/?x=1")
                .doesNotContain("ss", "rd");
    }

    @Test
    void redact_encodedPassword_masked() {
        assertThat(UriParameters.redact("mysql://app:s%40cr%3At@db:3306/app"))
                .isEqualTo("mysql://app:****@db:3306/app");
    }

    @Test
    void redact_loneUserInfo_maskedBecauseRedisReadsItAsThePassword() {
        assertThat(UriParameters.redact("redis://s3cret@h:1")).isEqualTo("redis://****@h:1");
        assertThat(UriParameters.redact("redis://sec@ret@h:1")).isEqualTo("redis://****@h:1");
        assertThat(UriParameters.redact("etcd://user@host:2379")).isEqualTo("etcd://****@host:2379");
    }

    @Test
    void redact_passwordParameters_masked() {
        assertThat(
                        UriParameters.redact(
                                "jdbc:mysql://db/app?user=u&password=secret&trustCertificateKeyStorePassword=s2&sslMode=VERIFY_CA"))
                .doesNotContain("secret", "s2")
                .contains("password=****", "trustCertificateKeyStorePassword=****", "sslMode=VERIFY_CA");
        assertThat(UriParameters.redact("zk://h:1?tlsTrustStorePassword=s3cret&pwd=x&b=1"))
                .isEqualTo("zk://h:1?tlsTrustStorePassword=****&pwd=****&b=1");
    }

    @Test
    void redact_noCredentials_unchanged() {
        assertThat(UriParameters.redact("redis://host:6379/0?a=b@c")).isEqualTo("redis://host:6379/0?a=b@c");
        assertThat(UriParameters.redact("redis://h:1/path?a=b@c")).isEqualTo("redis://h:1/path?a=b@c");
        assertThat(UriParameters.redact("redlock://h1:6379,h2:6379,h3:6379"))
                .isEqualTo("redlock://h1:6379,h2:6379,h3:6379");
    }
}
