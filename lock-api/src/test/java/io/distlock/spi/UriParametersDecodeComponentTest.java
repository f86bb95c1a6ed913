package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UriParametersDecodeComponentTest {

    @Test
    void decodeComponent_plusAndPercentSequences_plusStaysAPlus() {
        assertThat(UriParameters.decodeComponent("p+w%40x%2B%20%C3%A9")).isEqualTo("p+w@x+ é");
        assertThat(UriParameters.decodeComponent("plain")).isEqualTo("plain");
        assertThat(UriParameters.decodeComponent("")).isEmpty();
    }

    @Test
    void decodeComponent_brokenPercentSequence_rejected() {
        assertThatThrownBy(() -> UriParameters.decodeComponent("a%zz")).isInstanceOf(IllegalArgumentException.class);
    }
}
