package io.distlock.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The TCK proves itself: run against each deliberately broken provider, it fails exactly the rules
 * that should catch the bug, each with a message that names the rule. (The same toy backend without
 * bugs passes everything: {@link ToyLockProviderTckTest}.) Run them all with {@code -Dtest='BrokenProviders*Test'}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BrokenProvidersTest {
    /**
     * The broken providers are split over this many test classes ({@code BrokenProviders0Test} …),
     * which the build runs in separate JVMs at once: each provider's TCK run mostly waits, and
     * TCK-3.6 lists the threads of its own JVM, so that runs in one JVM must not overlap.
     */
    static final int SHARDS = 8;

    /** Which share of {@link #brokenProviders()} this class runs. */
    abstract int shard();

    private static final Pattern RULE = Pattern.compile("^(TCK-\\d+\\.\\d+) .*");

    /**
     * Each broken provider, the rules that must catch it, and rules that may also catch it depending
     * on timing (the forgetful lease of {@code ValidAfterLostTck} overstates its validity by only a
     * few milliseconds right after acquisition, which TCK-7.1's history check sees only when the next
     * holder is that quick; TCK-7.4's only when the crash falls where the renewal grid leaves that
     * overstatement in the holder's last belief).
     */
    static Stream<Arguments> brokenProviders() {
        return Stream.of(
                Arguments.of(BrokenProviders.ReleaseIgnoresOwnerTck.class, Set.of("TCK-6.1"), Set.of()),
                Arguments.of(
                        BrokenProviders.NoTtlTck.class,
                        Set.of("TCK-7.1", "TCK-7.3", "TCK-7.4", "TCK-13.1", "TCK-13.4", "TCK-13.5"),
                        Set.of()),
                Arguments.of(
                        BrokenProviders.RenewIgnoresOwnerTck.class,
                        Set.of("TCK-6.2", "TCK-8.1", "TCK-8.3", "TCK-8.4", "TCK-13.3", "TCK-13.7"),
                        Set.of()),
                Arguments.of(
                        BrokenProviders.ClientSideTokensTck.class,
                        Set.of(
                                "TCK-5.2",
                                "TCK-7.1",
                                "TCK-7.4",
                                "TCK-9.1",
                                "TCK-9.2",
                                "TCK-9.3",
                                "TCK-10.3",
                                "TCK-13.1"),
                        Set.of()),
                Arguments.of(
                        BrokenProviders.ValidAfterLostTck.class,
                        Set.of(
                                "TCK-1.8",
                                "TCK-3.3",
                                "TCK-6.2",
                                "TCK-7.3",
                                "TCK-8.1",
                                "TCK-8.2",
                                "TCK-8.3",
                                "TCK-8.4",
                                "TCK-10.2",
                                "TCK-11.1",
                                "TCK-13.1",
                                "TCK-13.4",
                                "TCK-13.6"),
                        Set.of("TCK-7.1", "TCK-7.4", "TCK-13.3")),
                Arguments.of(BrokenProviders.FormatCharactersDroppedTck.class, Set.of("TCK-4.6"), Set.of()),
                Arguments.of(BrokenProviders.AuthFailureAsOutageTck.class, Set.of("TCK-12.1"), Set.of()),
                Arguments.of(
                        BrokenProviders.ValidityFromReplyTck.class,
                        Set.of("TCK-1.8"),
                        Set.of("TCK-7.1", "TCK-7.4", "TCK-13.1")),
                Arguments.of(BrokenProviders.RefusedRenewalTakenForOutageTck.class, Set.of("TCK-8.4"), Set.of()),
                Arguments.of(BrokenProviders.PollsWhileDeclaringNotificationTck.class, Set.of("TCK-2.6"), Set.of()),
                Arguments.of(BrokenProviders.ThreadLeftAfterCloseTck.class, Set.of("TCK-3.6"), Set.of()),
                Arguments.of(BrokenProviders.NameCutTo191CharactersTck.class, Set.of("TCK-4.7"), Set.of("TCK-4.6")),
                Arguments.of(
                        BrokenProviders.RenewalSetsShorterTtlTck.class,
                        Set.of("TCK-7.4"),
                        Set.of("TCK-6.2", "TCK-7.2", "TCK-8.3", "TCK-10.3")),
                Arguments.of(BrokenProviders.FifoDeclaredWithoutQueueTck.class, Set.of("TCK-2.4"), Set.of()),
                Arguments.of(BrokenProviders.LostWakeUpTck.class, Set.of("TCK-2.5"), Set.of("TCK-5.1", "TCK-5.2")),
                Arguments.of(BrokenProviders.TokensResetOnRestartTck.class, Set.of("TCK-10.3"), Set.of()),
                Arguments.of(BrokenProviders.RenewalForgetsExtensionTck.class, Set.of("TCK-13.6"), Set.of()),
                Arguments.of(BrokenProviders.ReleaseAfterAnswersTrueTck.class, Set.of("TCK-13.7"), Set.of()));
    }

    /**
     * The broken providers to run: all, or those named (simple class names, comma-separated) by
     * {@code -Dbroken=LostWakeUpTck,FifoDeclaredWithoutQueueTck}, so that some can be repeated.
     */
    Stream<Arguments> selected() {
        String only = System.getProperty("broken");
        if (only != null) {
            // the named ones, all in the first share
            Set<String> names = Set.of(only.split(","));
            return shard() != 0
                    ? Stream.empty()
                    : brokenProviders().filter(a -> names.contains(((Class<?>) a.get()[0]).getSimpleName()));
        }
        List<Arguments> all = brokenProviders().toList();
        return java.util.stream.IntStream.range(0, all.size())
                .filter(i -> i % SHARDS == shard())
                .mapToObj(all::get);
    }

    @ParameterizedTest(name = "{0}", allowZeroInvocations = true)
    @MethodSource("selected")
    void tck_brokenProvider_failsExactlyTheRulesThatCatchTheBug(
            Class<?> tck, Set<String> expected, Set<String> mayAlsoFail) {
        Map<String, String> failed = new ConcurrentHashMap<>();
        Map<String, String> skipped = new ConcurrentHashMap<>();
        Set<String> passed = ConcurrentHashMap.newKeySet();
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (!id.isTest()) {
                    result.getThrowable().ifPresent(t -> failed.put(id.getDisplayName(), String.valueOf(t)));
                    return;
                }
                String rule = rule(id.getDisplayName());
                switch (result.getStatus()) {
                    case SUCCESSFUL -> passed.add(rule);
                    case ABORTED ->
                        skipped.put(
                                rule,
                                result.getThrowable().map(Throwable::getMessage).orElse(""));
                    case FAILED ->
                        failed.put(
                                rule, result.getThrowable().map(String::valueOf).orElse(""));
                }
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                skipped.put(rule(id.getDisplayName()), reason);
            }
        };
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(tck))
                .build();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, listener);

        Set<String> allowed = new TreeSet<>(expected);
        allowed.addAll(mayAlsoFail);
        assertThat(new TreeSet<>(failed.keySet()))
                .as("rules failed by %s (messages: %s)", tck.getSimpleName(), new TreeMap<>(failed))
                .containsAll(expected)
                .isSubsetOf(allowed);
        failed.forEach((rule, message) -> assertThat(message)
                .as("failure message of %s names the rule", rule)
                .contains(rule));
        assertThat(skipped.keySet())
                .as("only the rules the toy backend has no hook or capability for are skipped: %s", skipped)
                .contains("TCK-3.5")
                .isSubsetOf("TCK-3.5", "TCK-2.4");
        assertReported(tck, failed.keySet());
        assertThat(passed.size() + failed.size() + skipped.size())
                .as("every rule ran")
                .isGreaterThanOrEqualTo(52);
    }

    /** The compatibility report written for the run lists each failed rule as failed. */
    private static void assertReported(Class<?> tck, Set<String> failedRules) {
        Path dir = TckReportExtension.reportDirectory();
        String marker = "\"testClass\": \"" + tck.getName() + "\"";
        List<String> lines;
        try (Stream<Path> files = Files.list(dir)) {
            Path report = files.filter(f -> f.toString().endsWith(".json"))
                    .filter(f -> read(f).contains(marker))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no JSON report in " + dir + " for " + tck.getName()));
            lines = read(report).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String rule : failedRules) {
            assertThat(lines)
                    .as("JSON report line of %s", rule)
                    .anySatisfy(l ->
                            assertThat(l).contains("\"rule\": \"" + rule + "\"").contains("\"outcome\": \"failed\""));
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String rule(String displayName) {
        Matcher m = RULE.matcher(displayName);
        return m.matches() ? m.group(1) : displayName;
    }
}
