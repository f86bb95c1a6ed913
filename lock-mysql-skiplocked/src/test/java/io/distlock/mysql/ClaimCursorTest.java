package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClaimCursorTest {

    @Test
    void claimed_numbersOutOfOrder_keepsTheLargestUntilAClaimFromTheStart() {
        ClaimCursor cursor = ClaimCursor.create();
        assertThat(cursor.position()).isEmpty();
        cursor.claimed(List.of(11, 20), false);
        cursor.claimed(List.of(1, 10), false); // a concurrent claim that finished later
        assertThat(cursor.position()).contains(20);
        cursor.claimed(List.of(3), true);
        assertThat(cursor.position())
                .as("a claim from the first key sets the cursor")
                .contains(3);
        cursor.claimed(List.of(), true);
        assertThat(cursor.position())
                .as("nothing claimable: back to the first key")
                .isEmpty();
    }

    @Test
    void claimed_keysJavaMayOrderUnlikeTheServer_takesTheLatest() {
        ClaimCursor cursor = ClaimCursor.create();
        cursor.claimed(List.of("b"), false);
        cursor.claimed(List.of("A"), false); // a case-insensitive collation orders "A" before "b"
        assertThat(cursor.position()).contains("A");
        cursor.claimed(List.of(7L), false);
        cursor.claimed(List.of(5), false); // different types: not compared
        assertThat(cursor.position()).contains(5);
    }

    @Test
    void usingIndex_unsafeName_rejectedNamingTheArgument() {
        assertThatThrownBy(() -> ClaimCursor.usingIndex("st) UNION SELECT (1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index");
        assertThatThrownBy(() -> ClaimCursor.usingIndex(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index");
    }
}
