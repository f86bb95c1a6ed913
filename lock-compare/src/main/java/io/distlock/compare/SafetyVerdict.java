package io.distlock.compare;

import java.util.List;
import java.util.Objects;

/**
 * What a fault-injection run found for one backend, shown on that backend's card at the top of the
 * HTML report. The comparison itself measures speed, not safety: {@code ./distlock compare} fills
 * this from the recorded nemesis results ({@code docs/nemesis-results.json}); a backend without a
 * verdict is shown as "not measured".
 *
 * @param summary one line, for example "never granted twice under any fault tested"
 * @param unsafe whether some fault made the backend grant a lock twice or break fencing (the card
 *     shows the summary as a warning)
 * @param details one line per aspect, for example "fencing: held — 0 of 5881 accepted writes out
 *     of token order"
 */
public record SafetyVerdict(String summary, boolean unsafe, List<String> details) {

    public SafetyVerdict {
        Objects.requireNonNull(summary, "summary must not be null");
        details = details == null ? List.of() : List.copyOf(details);
    }
}
