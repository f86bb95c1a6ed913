package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockConfigurationException;
import io.distlock.LockProviders;
import org.junit.jupiter.api.Test;

class MySqlUriTest {

    @Test
    void open_missingDatabase_rejectedWithoutPassword() {
        assertThatThrownBy(() -> LockProviders.open("mysql://u:topsecret@127.0.0.1:3306"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("database")
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void open_badParameter_rejectedNamingIt() {
        assertThatThrownBy(() -> LockProviders.open("mysql://u:topsecret@127.0.0.1:3306/db?table=a-b"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("table must match")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> LockProviders.open("mysql://u:topsecret@127.0.0.1:3306/db?nope=1"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("nope")
                .hasMessageNotContaining("topsecret");
    }
}
