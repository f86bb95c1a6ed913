package io.distlock.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Every rule's id, method name and SPEC.md entry agree. */
class RuleCatalogueTest {
    private static final Pattern ID = Pattern.compile("^TCK-(\\d+)\\.(\\d+) .+");

    @Test
    void rules_idsMethodNamesAndCatalogue_agree() throws IOException {
        String spec = Files.readString(
                Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "SPEC.md"),
                StandardCharsets.UTF_8);
        List<String> ids = new ArrayList<>();
        for (Method m : LockProviderTck.class.getDeclaredMethods()) {
            if (!m.isAnnotationPresent(Test.class)) {
                continue;
            }
            String display = m.getAnnotation(DisplayName.class).value();
            Matcher id = ID.matcher(display);
            assertThat(id.matches())
                    .as("display name of %s: %s", m.getName(), display)
                    .isTrue();
            assertThat(m.getName())
                    .as("method of %s", display)
                    .startsWith("tck_" + id.group(1) + "_" + id.group(2) + "_");
            String rule = "TCK-" + id.group(1) + "." + id.group(2);
            assertThat(spec).as("SPEC.md entry for %s", rule).contains("| " + rule + " |");
            ids.add(rule);
        }
        assertThat(ids).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(30);
        Matcher inSpec = Pattern.compile("\\| (TCK-\\d+\\.\\d+) \\|").matcher(spec);
        while (inSpec.find()) {
            assertThat(ids)
                    .as("SPEC.md lists %s, which has no test", inSpec.group(1))
                    .contains(inSpec.group(1));
        }
    }
}
