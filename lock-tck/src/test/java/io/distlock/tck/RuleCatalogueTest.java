package io.distlock.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Capabilities;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Every rule's id, method name, group and SPEC.md entry agree. */
class RuleCatalogueTest {
    private static final Pattern ID = Pattern.compile("^TCK-(\\d+)\\.(\\d+) .+");

    /** Each rule group and the SPEC.md section it holds. */
    private static final Map<Class<?>, Integer> SECTIONS = sections();

    private static Map<Class<?>, Integer> sections() {
        Map<Class<?>, Integer> m = new LinkedHashMap<>();
        m.put(BasicContractRules.class, 1);
        m.put(WaitingRules.class, 2);
        m.put(ClosingRules.class, 3);
        m.put(BadInputRules.class, 4);
        m.put(MutualExclusionRules.class, 5);
        m.put(OwnershipRules.class, 6);
        m.put(ExpiryAndRenewalRules.class, 7);
        m.put(LossNotificationRules.class, 8);
        m.put(FencingRules.class, 9);
        m.put(ServerUnavailableRules.class, 10);
        m.put(OperationsRules.class, 11);
        m.put(ErrorRules.class, 12);
        m.put(LeaseControlRules.class, 13);
        return m;
    }

    @Test
    void rules_idsMethodNamesGroupsAndCatalogue_agree() throws IOException {
        String spec = Files.readString(
                Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "SPEC.md"),
                StandardCharsets.UTF_8);
        assertThat(LockProviderTck.class.getInterfaces())
                .as("the rule groups LockProviderTck implements")
                .containsExactlyInAnyOrderElementsOf(SECTIONS.keySet());
        assertThat(Arrays.stream(LockProviderTck.class.getDeclaredMethods())
                        .filter(m -> m.isAnnotationPresent(Test.class))
                        .map(Method::getName))
                .as("rules declared in LockProviderTck itself rather than in a group")
                .isEmpty();
        List<String> ids = new ArrayList<>();
        for (Map.Entry<Class<?>, Integer> group : SECTIONS.entrySet()) {
            int section = group.getValue();
            assertThat(spec)
                    .as(
                            "SPEC.md heading of section %d (%s)",
                            section, group.getKey().getSimpleName())
                    .containsPattern("(?m)^## " + section + "\\. ");
            List<String> inGroup = new ArrayList<>();
            for (Method m : group.getKey().getDeclaredMethods()) {
                if (!m.isAnnotationPresent(Test.class)) {
                    continue;
                }
                assertThat(m.isDefault()).as("%s is a default method", m).isTrue();
                assertThat(Modifier.isPublic(m.getModifiers())).isTrue();
                String display = m.getAnnotation(DisplayName.class).value();
                Matcher id = ID.matcher(display);
                assertThat(id.matches())
                        .as("display name of %s: %s", m.getName(), display)
                        .isTrue();
                assertThat(Integer.parseInt(id.group(1)))
                        .as("section of %s in %s", display, group.getKey().getSimpleName())
                        .isEqualTo(section);
                assertThat(m.getName())
                        .as("method of %s", display)
                        .startsWith("tck_" + id.group(1) + "_" + id.group(2) + "_");
                String rule = "TCK-" + id.group(1) + "." + id.group(2);
                assertThat(spec).as("SPEC.md entry for %s", rule).contains("| " + rule + " |");
                inGroup.add(rule);
            }
            assertThat(inGroup)
                    .as("rules of %s", group.getKey().getSimpleName())
                    .isNotEmpty();
            ids.addAll(inGroup);
        }
        assertThat(ids).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(52);
        Matcher inSpec = Pattern.compile("\\| (TCK-\\d+\\.\\d+) \\|").matcher(spec);
        while (inSpec.find()) {
            assertThat(ids)
                    .as("SPEC.md lists %s, which has no test", inSpec.group(1))
                    .contains(inSpec.group(1));
        }
    }

    /**
     * Every component of {@link Capabilities} and every value of its enums has a row in SPEC.md's
     * table "Capabilities and the rules that check them", booleans with both {@code true} and {@code
     * false}, each row naming rules that exist. A capability added without a rule that reads it
     * fails here.
     */
    @Test
    void capabilities_everyComponentAndValue_checkedByARule() throws IOException {
        String spec = Files.readString(
                Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "SPEC.md"),
                StandardCharsets.UTF_8);
        int start = spec.indexOf("## Capabilities and the rules that check them");
        assertThat(start)
                .as("SPEC.md section \"Capabilities and the rules that check them\"")
                .isNotNegative();
        int end = spec.indexOf("\n## ", start + 1);
        String section = end < 0 ? spec.substring(start) : spec.substring(start, end);
        Set<String> rules = new HashSet<>();
        Matcher inSpec = Pattern.compile("(?m)^\\| (TCK-\\d+\\.\\d+) \\|").matcher(spec);
        while (inSpec.find()) {
            rules.add(inSpec.group(1));
        }
        Map<String, List<String>> rows = new LinkedHashMap<>();
        Matcher row =
                Pattern.compile("(?m)^\\| `(\\w+)` \\| (.+?) \\| (.+?) \\|$").matcher(section);
        while (row.find()) {
            String rowRules = row.group(3);
            Matcher id = Pattern.compile("TCK-\\d+\\.\\d+").matcher(rowRules);
            int named = 0;
            while (id.find()) {
                named++;
                assertThat(rules)
                        .as("rule %s named for capability %s %s", id.group(), row.group(1), row.group(2))
                        .contains(id.group());
            }
            assertThat(named)
                    .as("rules named for capability %s %s", row.group(1), row.group(2))
                    .isPositive();
            rows.computeIfAbsent(row.group(1), k -> new ArrayList<>()).add(row.group(2));
        }
        for (RecordComponent c : Capabilities.class.getRecordComponents()) {
            assertThat(rows)
                    .as("SPEC.md capability table: a row for component %s", c.getName())
                    .containsKey(c.getName());
            String values = String.join(" ", rows.get(c.getName()));
            if (c.getType() == boolean.class) {
                assertThat(values)
                        .as("capability %s is checked both ways", c.getName())
                        .contains("`true`")
                        .contains("`false`");
            } else if (c.getType().isEnum()) {
                for (Object constant : c.getType().getEnumConstants()) {
                    assertThat(rows.get(c.getName()))
                            .as("SPEC.md capability table: a row for %s %s", c.getName(), constant)
                            .contains("`" + constant + "`");
                }
            } else {
                throw new AssertionError(
                        "capability " + c.getName() + " has a type the catalogue does not know: " + c.getType());
            }
        }
    }
}
