package io.distlock.tck.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's code examples are the real files in this package, so they cannot drift apart. */
class ReadmeExampleTest {
    private static final Pattern EXAMPLE =
            Pattern.compile("<!-- example: (\\S+) -->\\n```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void readme_javaExamples_equalTheTestedFiles() throws IOException {
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        String readme = Files.readString(base.resolve("README.md"), StandardCharsets.UTF_8);
        Matcher m = EXAMPLE.matcher(readme);
        int examples = 0;
        while (m.find()) {
            examples++;
            String file = Files.readString(base.resolve(m.group(1)), StandardCharsets.UTF_8);
            assertThat(m.group(2))
                    .as("README code block for %s must equal the file", m.group(1))
                    .isEqualTo(file);
        }
        assertThat(examples).as("examples found in README.md").isEqualTo(3);
    }
}
