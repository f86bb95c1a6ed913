package io.distlock.shedlock.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.build.ReadmeExamples;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's code examples are the real files in this package, so they cannot drift apart. */
class ReadmeExampleTest {
    @Test
    void readme_javaExamples_equalTheTestedFiles() {
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        assertThat(ReadmeExamples.assertBlocksEqualFiles(base))
                .as("examples found in README.md")
                .isEqualTo(2);
    }
}
