package io.distlock.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The project's documentation as users read it: no project history in shipped Markdown or main
 * code, every Java block in the Markdown compiled and run by a test, every relative link resolving.
 */
class DocsTest {
    private static final Path ROOT = root();

    /** Words that tell the project's history rather than what it is. */
    private static final List<Pattern> HISTORY = List.of(
            Pattern.compile("(?i)\\bsessions? \\d+\\b(?!\\s*(?:ms|s|µs|us|min|minutes|seconds|%|–|-))"),
            Pattern.compile("(?i)\\bissues? #?\\d+\\b"),
            Pattern.compile("(?i)\\bstops? \\d+\\b(?!\\s*(?:ms|s|µs|us|min|minutes|seconds|%))"),
            Pattern.compile("(?i)\\b(?:since|before|after|until) the (?:rework|refactor(?:ing)?|split|redesign)\\b"),
            Pattern.compile(
                    "(?i)\\b(?:in|since|before|after) (?:this|that|the last|an earlier|the previous) session\\b"),
            Pattern.compile("(?i)\\bas before\\b"),
            Pattern.compile("(?i)\\b(?:before|after) this change\\b"));

    private static final Pattern FENCE = Pattern.compile("(?m)^```([a-zA-Z]*)\\n(.*?)^```", Pattern.DOTALL);
    private static final Pattern EXAMPLE_MARK = Pattern.compile("<!-- example: (\\S+) -->\\n$");
    private static final Pattern SNIPPET_NAME = Pattern.compile("\\A// ([A-Za-z0-9_.-]+)\\n");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");
    private static final Pattern ANCHOR_TAG = Pattern.compile("<a (?:name|id)=\"([^\"]+)\"");

    private static Path root() {
        Path p = Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
                .toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("lock-bom"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("project root (with lock-bom/) not found above the build directory");
        }
        return p;
    }

    /** Markdown users read: READMEs, docs/, the TCK's rule catalogue (not the changelog). */
    static List<Path> markdown() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> !excluded(p))
                    .filter(p -> !p.getFileName().toString().equals("CHANGELOG.md"))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> mainSources() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().contains("/src/main/"))
                    .filter(p -> !excluded(p))
                    .filter(p -> p.toString().endsWith(".java")
                            || p.toString().endsWith(".properties")
                            || p.toString().endsWith(".lua"))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean excluded(Path p) {
        String rel = ROOT.relativize(p).toString();
        return rel.startsWith(".git")
                || rel.contains("/target/")
                || rel.startsWith("target/")
                || rel.contains("node_modules")
                || rel.startsWith("build-output/")
                || rel.startsWith("results/");
    }

    @Test
    void shippedMarkdownAndMainCode_tellNoProjectHistory() {
        List<String> found = new ArrayList<>();
        for (Path p : concat(markdown(), mainSources())) {
            String[] lines = read(p).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                for (Pattern h : HISTORY) {
                    Matcher m = h.matcher(lines[i]);
                    if (m.find()) {
                        found.add(ROOT.relativize(p) + ":" + (i + 1) + ": \"" + m.group() + "\"");
                    }
                }
            }
        }
        assertThat(found)
                .as("project history in docs or main code (history lives in git log): %d places", found.size())
                .isEmpty();
    }

    @Test
    void everyJavaBlockInTheMarkdown_isTestedCode() {
        Map<String, Map<String, String>> snippets = snippetRegions();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path md : markdown()) {
            String text = read(md);
            Matcher m = FENCE.matcher(text);
            while (m.find()) {
                if (!m.group(1).equals("java")) {
                    continue;
                }
                checked++;
                String where = ROOT.relativize(md) + ":" + lineOf(text, m.start());
                String body = m.group(2);
                Matcher example = EXAMPLE_MARK.matcher(text.substring(Math.max(0, m.start() - 300), m.start()));
                if (example.find()) {
                    Path file = md.getParent().resolve(example.group(1));
                    if (!Files.exists(file)) {
                        problems.add(where + ": example file " + example.group(1) + " does not exist");
                    } else if (!read(file).equals(body)) {
                        problems.add(where + ": block differs from " + example.group(1));
                    } else if (!file.toString().contains("/src/test/")) {
                        problems.add(where + ": " + example.group(1) + " is not test code");
                    }
                    continue;
                }
                Matcher name = SNIPPET_NAME.matcher(body);
                if (!name.find()) {
                    problems.add(where + ": a java block that is neither an <!-- example: … --> file nor a"
                            + " '// name' snippet of tested code (use ```text for sketches)");
                    continue;
                }
                String tested = snippet(snippets, module(md), name.group(1));
                if (tested == null) {
                    problems.add(where + ": no test source has '// README-BEGIN " + name.group(1) + "'");
                } else if (!normalize(body.substring(name.end())).equals(tested)) {
                    problems.add(where + ": snippet '" + name.group(1) + "' differs from its tested code");
                }
            }
        }
        assertThat(checked).as("java blocks found").isPositive();
        assertThat(problems).as("java blocks in the Markdown").isEmpty();
    }

    @Test
    void everyRelativeLink_resolves() {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (Path md : markdown()) {
            String text = withoutCode(read(md));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("(?i)[a-z][a-z0-9+.-]*:.*") || target.startsWith("//")) {
                    continue; // absolute URL, mailto:
                }
                String file = target;
                String anchor = null;
                int hash = target.indexOf('#');
                if (hash >= 0) {
                    file = target.substring(0, hash);
                    anchor = target.substring(hash + 1);
                }
                Path resolved =
                        file.isEmpty() ? md : md.getParent().resolve(file).normalize();
                String where = ROOT.relativize(md) + ": (" + target + ")";
                if (!Files.exists(resolved)) {
                    broken.add(where + ": no such file");
                } else if (anchor != null
                        && !anchor.isEmpty()
                        && resolved.toString().endsWith(".md")) {
                    Set<String> known = anchors.computeIfAbsent(resolved, DocsTest::anchorsOf);
                    if (!known.contains(anchor)) {
                        broken.add(where + ": no heading or anchor '" + anchor + "'");
                    }
                }
            }
        }
        assertThat(broken).as("relative links in the Markdown").isEmpty();
    }

    /** GitHub's heading anchors (lower case, punctuation dropped, spaces to dashes) and explicit anchors. */
    static Set<String> anchorsOf(Path md) {
        Set<String> out = new HashSet<>();
        String text = read(md);
        Map<String, Integer> seen = new HashMap<>();
        Matcher h = HEADING.matcher(withoutCode(text));
        while (h.find()) {
            String slug = h.group(1)
                    .trim()
                    .toLowerCase(Locale.ROOT)
                    .replaceAll("[`*_]", "")
                    .replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                    .replaceAll("[^\\p{L}\\p{N} -]", "")
                    .replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            out.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        Matcher a = ANCHOR_TAG.matcher(text);
        while (a.find()) {
            out.add(a.group(1));
        }
        return out;
    }

    /** The top-level folder of {@code p} (its module), or "" at the root. */
    private static String module(Path p) {
        Path rel = ROOT.relativize(p);
        return rel.getNameCount() > 1 ? rel.getName(0).toString() : "";
    }

    /** A snippet of the Markdown file's own module, else the only one of that name in the project. */
    private static String snippet(Map<String, Map<String, String>> regions, String module, String name) {
        Map<String, String> byModule = regions.getOrDefault(name, Map.of());
        if (byModule.containsKey(module)) {
            return byModule.get(module);
        }
        return byModule.size() == 1 ? byModule.values().iterator().next() : null;
    }

    /**
     * Every {@code // README-BEGIN name} … {@code // README-END} region of test code, normalised, by
     * name and module.
     */
    private static Map<String, Map<String, String>> snippetRegions() {
        Map<String, Map<String, String>> out = new HashMap<>();
        Pattern region = Pattern.compile("// README-BEGIN (\\S+)\\n(.*?)// README-END", Pattern.DOTALL);
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> f.toString().contains("/src/test/"))
                    .filter(f -> !excluded(f))
                    .collect(Collectors.toList())) {
                Matcher m = region.matcher(read(p));
                while (m.find()) {
                    out.computeIfAbsent(m.group(1), k -> new HashMap<>()).put(module(p), normalize(m.group(2)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static String normalize(String code) {
        return code.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n"));
    }

    private static String withoutCode(String markdown) {
        return FENCE.matcher(markdown).replaceAll("").replaceAll("`[^`\\n]*`", "``");
    }

    private static int lineOf(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
