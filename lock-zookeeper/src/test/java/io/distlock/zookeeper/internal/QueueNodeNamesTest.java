package io.distlock.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class QueueNodeNamesTest {
    /** The rule as a regular expression (what the hand-written check replaced). */
    private static final Pattern QUEUE_NODE =
            Pattern.compile("_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock--?\\d{10,11}");

    private static final String UUID_TEXT = "3f2504e0-4f89-11d3-9a0c-0305e82c3301";

    @Test
    void isQueueNode_namesWeCreate_accepted() {
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT + "-lock-0000000042"))
                .isTrue();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT + "-lock--0000000042"))
                .isTrue();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT + "-lock-21474836470"))
                .isTrue();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID.randomUUID() + "-lock-0000000000"))
                .isTrue();
    }

    @Test
    void isQueueNode_otherNames_rejected() {
        assertThat(QueueNodeNames.isQueueNode("")).isFalse();
        assertThat(QueueNodeNames.isQueueNode("lock-0000000001")).isFalse();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT.toUpperCase() + "-lock-0000000001"))
                .isFalse();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT + "-lock-000000001"))
                .isFalse();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT + "-lock-000000000012"))
                .isFalse();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT + "-lock-00000000x1"))
                .isFalse();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT + "-lack-0000000001"))
                .isFalse();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT + "_lock-0000000001"))
                .isFalse();
        assertThat(QueueNodeNames.isQueueNode("_c_" + UUID_TEXT.replace('-', 'a') + "-lock-0000000001"))
                .isFalse();
    }

    @Test
    void isQueueNode_mutatedNames_agreesWithTheRegularExpression() {
        Random random = new Random(42);
        String alphabet = "0123456789abcdefABCDEF-_clokx/";
        List<String> seeds = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            seeds.add("_c_" + new UUID(random.nextLong(), random.nextLong()) + "-lock-"
                    + String.format("%010d", random.nextInt(Integer.MAX_VALUE)));
        }
        int accepted = 0;
        for (int i = 0; i < 200_000; i++) {
            StringBuilder name = new StringBuilder(seeds.get(random.nextInt(seeds.size())));
            int edits = random.nextInt(3);
            for (int e = 0; e < edits; e++) {
                int at = random.nextInt(name.length() + 1);
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                switch (random.nextInt(3)) {
                    case 0 -> name.insert(at, c);
                    case 1 -> {
                        if (at < name.length()) {
                            name.deleteCharAt(at);
                        }
                    }
                    default -> {
                        if (at < name.length()) {
                            name.setCharAt(at, c);
                        }
                    }
                }
            }
            String s = name.toString();
            boolean expected = QUEUE_NODE.matcher(s).matches();
            assertThat(QueueNodeNames.isQueueNode(s)).as(s).isEqualTo(expected);
            if (expected) {
                accepted++;
            }
        }
        // both outcomes were exercised
        assertThat(accepted).isBetween(1000, 199_000);
    }
}
