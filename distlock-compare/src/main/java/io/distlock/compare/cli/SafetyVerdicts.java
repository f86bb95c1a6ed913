package io.distlock.compare.cli;

import io.distlock.compare.SafetyVerdict;
import io.distlock.nemesis.GuaranteeVerdicts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The safety line of each backend's card in the report, from the recorded nemesis results: the
 * guarantee table's fencing cell, its failover cell, and every other fault under which the backend
 * granted a lock twice. Backends the results do not cover (the in-JVM one) have none, and the
 * report says "not measured".
 */
final class SafetyVerdicts {
    private SafetyVerdicts() {}

    /** The verdicts in {@code nemesisResults}, by backend; empty if the file does not exist. */
    static Map<String, SafetyVerdict> read(Path nemesisResults) throws IOException {
        Map<String, SafetyVerdict> out = new LinkedHashMap<>();
        if (!Files.isRegularFile(nemesisResults)) {
            return out;
        }
        for (GuaranteeVerdicts.Verdict v : GuaranteeVerdicts.read(nemesisResults)) {
            out.put(v.backend(), verdict(v));
        }
        return out;
    }

    static SafetyVerdict verdict(GuaranteeVerdicts.Verdict v) {
        List<String> unsafeUnder = new ArrayList<>();
        List<String> details = new ArrayList<>();
        details.add("fencing: " + v.fencing());
        for (GuaranteeVerdicts.Fault f : v.faults()) {
            if (f.unsafe()) {
                unsafeUnder.add(f.title());
            }
            boolean failover = f.title().equals(GuaranteeVerdicts.FAILOVER);
            if ((failover && !f.text().startsWith("see ")) || (!failover && f.unsafe())) {
                details.add(f.title() + ": " + f.text());
            }
        }
        String summary;
        if (unsafeUnder.isEmpty() && !v.fencingBroken()) {
            summary = "never granted twice under any fault tested; fencing held";
        } else {
            summary = (unsafeUnder.isEmpty() ? "" : "can grant a lock twice under: " + String.join(", ", unsafeUnder))
                    + (v.fencingBroken()
                            ? (unsafeUnder.isEmpty() ? "" : "; ") + "fencing broke"
                            : "; fencing tokens still rejected the stale holder");
        }
        return new SafetyVerdict(summary, !unsafeUnder.isEmpty() || v.fencingBroken(), details);
    }
}
