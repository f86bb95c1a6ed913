package io.distlock.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps a README's code examples and the tested code they come from from drifting apart. Two forms:
 *
 * <ul>
 *   <li>a whole file: a code block preceded by {@code <!-- example: path/To/File.java -->} must equal
 *       that file ({@link #assertBlocksEqualFiles});
 *   <li>a snippet: a block that starts with the line {@code // <name>} must equal, indentation and
 *       blank lines aside, the lines of a source file between {@code // README-BEGIN <name>} and
 *       {@code // README-END} ({@link #assertSnippetMatchesSource}).
 * </ul>
 */
public final class ReadmeExamples {
    private static final Pattern EXAMPLE =
            Pattern.compile("<!-- example: (\\S+) -->\\n```(?:java|properties)\\n(.*?)```", Pattern.DOTALL);

    private ReadmeExamples() {}

    /**
     * Checks every {@code <!-- example: path -->} block (java or properties) of {@code
     * dir/README.md} against the file at {@code dir/path}.
     *
     * @return how many examples were checked
     */
    public static int assertBlocksEqualFiles(Path dir) {
        String readme = read(dir.resolve("README.md"));
        Matcher m = EXAMPLE.matcher(readme);
        int examples = 0;
        while (m.find()) {
            examples++;
            assertThat(m.group(2))
                    .as("README code block for %s must equal the file", m.group(1))
                    .isEqualTo(read(dir.resolve(m.group(1))));
        }
        return examples;
    }

    /**
     * Checks that the java block of {@code readme} starting with {@code // name} shows the code of
     * {@code source} between {@code // README-BEGIN name} and {@code // README-END}.
     */
    public static void assertSnippetMatchesSource(Path readme, Path source, String name) {
        assertThat(normalize(between(read(readme), "```java\n// " + name + "\n", "```")))
                .as("README snippet '%s' must match %s", name, source)
                .isEqualTo(normalize(between(read(source), "// README-BEGIN " + name + "\n", "// README-END")));
    }

    private static String between(String text, String begin, String end) {
        int from = text.indexOf(begin);
        assertThat(from).as("'" + begin.trim() + "' present").isNotNegative();
        from += begin.length();
        return text.substring(from, text.indexOf(end, from));
    }

    private static String normalize(String code) {
        return code.lines().map(String::strip).filter(l -> !l.isEmpty()).reduce("", (x, y) -> x + y + "\n");
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
