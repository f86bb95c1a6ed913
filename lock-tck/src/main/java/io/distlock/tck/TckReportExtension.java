package io.distlock.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Writes the compatibility report of a {@link LockProviderTck} run: the outcome of every rule
 * (passed; failed with the message; skipped with the reason) to {@code
 * target/tck-report/<backend>.md} and {@code target/tck-report/<backend>.json}, relative to the
 * {@code basedir} system property (set by Maven's surefire and failsafe) or the working directory.
 *
 * <p>Registered on {@link LockProviderTck}; implementers do nothing to get it.
 */
public final class TckReportExtension implements TestWatcher, AfterAllCallback {
    private static final Pattern RULE = Pattern.compile("^(TCK-(\\d+)\\.(\\d+))\\s+(.*)$");
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(TckReportExtension.class);

    /** Outcome of a rule. */
    public enum Status {
        PASSED,
        FAILED,
        SKIPPED
    }

    /** One rule's outcome. */
    public record Outcome(String rule, String title, String method, Status status, String detail) {}

    @Override
    public void testSuccessful(ExtensionContext context) {
        record(context, Status.PASSED, "");
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        record(context, Status.FAILED, String.valueOf(cause));
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        record(context, Status.SKIPPED, cause == null ? "aborted" : String.valueOf(cause.getMessage()));
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {
        record(context, Status.SKIPPED, reason.orElse("disabled"));
    }

    private static void record(ExtensionContext context, Status status, String detail) {
        Matcher m = RULE.matcher(context.getDisplayName());
        String rule = m.matches() ? m.group(1) : context.getDisplayName();
        String title = m.matches() ? m.group(4) : context.getDisplayName();
        String method =
                context.getTestMethod().map(java.lang.reflect.Method::getName).orElse("");
        outcomes(context.getParent().orElse(context)).add(new Outcome(rule, title, method, status, detail));
    }

    @SuppressWarnings("unchecked")
    private static List<Outcome> outcomes(ExtensionContext classContext) {
        return (List<Outcome>) classContext.getStore(NS).computeIfAbsent("outcomes", k -> new ArrayList<Outcome>());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        List<Outcome> list = new ArrayList<>(outcomes(context));
        context.getExecutionException()
                .ifPresent(e -> list.add(new Outcome(
                        "setup", "fixture and class-level setup/teardown", "", Status.FAILED, String.valueOf(e))));
        list.sort(Comparator.comparing(Outcome::rule, TckReportExtension::compareRules));
        String backend = context.getTestInstance()
                .filter(LockProviderTck.class::isInstance)
                .map(i -> ((LockProviderTck) i).backendName())
                .orElse(context.getDisplayName());
        String safe = backend.replaceAll("[^A-Za-z0-9._-]", "_");
        Path dir = reportDirectory();
        try {
            Files.createDirectories(dir);
            Files.writeString(
                    dir.resolve(safe + ".md"),
                    markdown(backend, context.getRequiredTestClass().getName(), list),
                    StandardCharsets.UTF_8);
            Files.writeString(
                    dir.resolve(safe + ".json"),
                    json(backend, context.getRequiredTestClass().getName(), list),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the TCK report to " + dir, e);
        }
    }

    /**
     * Where the reports go: the system property {@code distlock.tck.reportDir} if set (for builds that
     * run TCK classes of one backend in several JVMs at once), else {@code target/tck-report} of the
     * module ({@code basedir}, else the working directory).
     */
    static Path reportDirectory() {
        String configured = System.getProperty("distlock.tck.reportDir");
        return configured != null && !configured.isBlank()
                ? Path.of(configured)
                : Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "target", "tck-report");
    }

    static int compareRules(String a, String b) {
        Matcher ma = Pattern.compile("TCK-(\\d+)\\.(\\d+)").matcher(a);
        Matcher mb = Pattern.compile("TCK-(\\d+)\\.(\\d+)").matcher(b);
        if (ma.matches() && mb.matches()) {
            int c = Integer.compare(Integer.parseInt(ma.group(1)), Integer.parseInt(mb.group(1)));
            return c != 0 ? c : Integer.compare(Integer.parseInt(ma.group(2)), Integer.parseInt(mb.group(2)));
        }
        return a.compareTo(b);
    }

    static String markdown(String backend, String testClass, List<Outcome> outcomes) {
        StringBuilder sb = new StringBuilder();
        sb.append("# TCK compatibility report: ").append(backend).append("\n\n");
        sb.append("Test class: `").append(testClass).append("`\n\n");
        sb.append(String.format(
                Locale.ROOT,
                "%d rules: %d passed, %d failed, %d skipped\n\n",
                outcomes.size(),
                count(outcomes, Status.PASSED),
                count(outcomes, Status.FAILED),
                count(outcomes, Status.SKIPPED)));
        sb.append("| rule | description | outcome | detail |\n|---|---|---|---|\n");
        for (Outcome o : outcomes) {
            sb.append("| ")
                    .append(o.rule())
                    .append(" | ")
                    .append(cell(o.title()))
                    .append(" | ")
                    .append(o.status().name().toLowerCase(Locale.ROOT))
                    .append(" | ")
                    .append(cell(o.detail()))
                    .append(" |\n");
        }
        return sb.toString();
    }

    static String json(String backend, String testClass, List<Outcome> outcomes) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\n  \"backend\": ").append(quote(backend));
        sb.append(",\n  \"testClass\": ").append(quote(testClass));
        sb.append(",\n  \"passed\": ").append(count(outcomes, Status.PASSED));
        sb.append(",\n  \"failed\": ").append(count(outcomes, Status.FAILED));
        sb.append(",\n  \"skipped\": ").append(count(outcomes, Status.SKIPPED));
        sb.append(",\n  \"rules\": [");
        for (int i = 0; i < outcomes.size(); i++) {
            Outcome o = outcomes.get(i);
            sb.append(i == 0 ? "\n" : ",\n");
            sb.append("    {\"rule\": ")
                    .append(quote(o.rule()))
                    .append(", \"title\": ")
                    .append(quote(o.title()))
                    .append(", \"method\": ")
                    .append(quote(o.method()))
                    .append(", \"outcome\": ")
                    .append(quote(o.status().name().toLowerCase(Locale.ROOT)))
                    .append(", \"detail\": ")
                    .append(quote(o.detail()))
                    .append('}');
        }
        sb.append(outcomes.isEmpty() ? "]\n}\n" : "\n  ]\n}\n");
        return sb.toString();
    }

    private static long count(List<Outcome> outcomes, Status s) {
        return outcomes.stream().filter(o -> o.status() == s).count();
    }

    private static String cell(String s) {
        return s.replace("\\", "\\\\").replace("|", "\\|").replace("\r", "").replace("\n", "<br>");
    }

    /** A JSON string literal for {@code s} (RFC 8259 escaping). */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20
                            || c == 0x2028
                            || c == 0x2029
                            || Character.isSurrogate(c)
                                    && !(Character.isHighSurrogate(c)
                                            && i + 1 < s.length()
                                            && Character.isLowSurrogate(s.charAt(i + 1)))
                                    && !(Character.isLowSurrogate(c)
                                            && i > 0
                                            && Character.isHighSurrogate(s.charAt(i - 1)))) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
