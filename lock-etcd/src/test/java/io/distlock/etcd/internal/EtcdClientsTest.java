package io.distlock.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Credentials;
import io.distlock.etcd.EtcdLockOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EtcdClientsTest {

    @Test
    void credentialsInClear_onlyPlainHttpToRemoteHostsWithCredentials() {
        List<String> endpoints = Endpoints.uris(
                List.of("etcd-1.example:2379", "127.0.0.1:2379", "[::1]:2379", "localhost:2379", "10.0.0.7:2379"),
                false);
        EtcdLockOptions withCredentials = EtcdLockOptions.builder()
                .credentials(Credentials.of("app", "secret"))
                .build();
        assertThat(EtcdClients.credentialsInClear(endpoints, withCredentials))
                .containsExactly("http://etcd-1.example:2379", "http://10.0.0.7:2379");
        // no credentials, or TLS: nothing to warn about
        assertThat(EtcdClients.credentialsInClear(endpoints, EtcdLockOptions.defaults()))
                .isEmpty();
        assertThat(EtcdClients.credentialsInClear(List.of("https://etcd-1.example:2379"), withCredentials))
                .isEmpty();
    }

    @Test
    void retryBackoff_fitsInsideTheRequestTimeout() {
        assertThat(EtcdClients.retryDelayMillis(Duration.ofSeconds(2))).isEqualTo(400);
        assertThat(EtcdClients.retryMaxDelayMillis(Duration.ofSeconds(2))).isEqualTo(1_000);
        assertThat(EtcdClients.retryDelayMillis(Duration.ofSeconds(30))).isEqualTo(500);
        assertThat(EtcdClients.retryMaxDelayMillis(Duration.ofSeconds(30))).isEqualTo(2_500);
        assertThat(EtcdClients.retryMaxDelayMillis(Duration.ofMillis(10)))
                .isGreaterThan(EtcdClients.retryDelayMillis(Duration.ofMillis(10)));
    }
}
