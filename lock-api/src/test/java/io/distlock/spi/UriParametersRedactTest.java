package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UriParametersRedactTest {

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
    void redact_passwordParameters_masked() {
        assertThat(
                        UriParameters.redact(
                                "jdbc:mysql://db/app?user=u&password=secret&trustCertificateKeyStorePassword=s2&sslMode=VERIFY_CA"))
                .doesNotContain("secret", "s2")
                .contains("password=****", "trustCertificateKeyStorePassword=****", "sslMode=VERIFY_CA");
    }

    @Test
    void redact_noCredentials_unchanged() {
        assertThat(UriParameters.redact("redis://host:6379/0?a=b@c")).isEqualTo("redis://host:6379/0?a=b@c");
        assertThat(UriParameters.redact("etcd://user@host:2379")).isEqualTo("etcd://user@host:2379");
    }
}
