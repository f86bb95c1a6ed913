package io.distlock.build;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Merges PIT's {@code mutations.xml} of several runs over the same mutants (lock-api's own tests,
 * the in-JVM TCK) into one result — a mutant counts as killed if any run killed it — and writes
 * {@code <out>.json} (the summary and every surviving mutant) and {@code <out>.md} (the page). A
 * surviving mutant is explained by a line of the explanations file: {@code <class>:<line>:<mutator>}
 * (the mutator's simple name), a tab, and why the mutant is equivalent or what would kill it.
 *
 * <p>Usage: {@code MutationResults <out> <explanations> <command> <label>=<mutations.xml>...}
 */
public final class MutationResults {

    /** One mutant, merged over the runs. */
    private record Mutant(
            String clazz,
            String method,
            String methodDescription,
            String indexes,
            int line,
            String mutator,
            String description,
            String status,
            String killedBy,
            List<String> runs) {

        String key() {
            return clazz + ":" + line + ":" + mutator;
        }

        boolean killed() {
            return !status.equals("SURVIVED") && !status.equals("NO_COVERAGE");
        }

        String pkg() {
            return clazz.substring(0, clazz.lastIndexOf('.'));
        }
    }

    private MutationResults() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            throw new IllegalArgumentException(
                    "usage: MutationResults <out> <explanations> <command> <label>=<mutations.xml>...");
        }
        Path out = Path.of(args[0]);
        Map<String, String> explanations = explanations(Path.of(args[1]));
        String command = args[2];
        Map<String, Mutant> merged = new LinkedHashMap<>();
        List<String> runs = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            String[] run = args[i].split("=", 2);
            runs.add(run[0]);
            for (Mutant m : read(run[0], Path.of(run[1]))) {
                merged.merge(identity(m), m, MutationResults::merge);
            }
        }
        List<Mutant> all = new ArrayList<>(merged.values());
        String machine = machine();
        Files.writeString(
                out.resolveSibling(out.getFileName() + ".json"), json(all, runs, command, machine, explanations));
        Files.writeString(
                out.resolveSibling(out.getFileName() + ".md"), markdown(all, runs, command, machine, explanations));
    }

    private static String identity(Mutant m) {
        return m.clazz + "|" + m.method + m.methodDescription + "|" + m.line + "|" + m.indexes + "|" + m.mutator + "|"
                + m.description;
    }

    private static Mutant merge(Mutant a, Mutant b) {
        List<String> runs = new ArrayList<>(a.runs);
        runs.addAll(b.runs);
        Mutant killer = a.killed() ? a : b.killed() ? b : null;
        String status = killer != null
                ? killer.status
                : a.status.equals("SURVIVED") || b.status.equals("SURVIVED") ? "SURVIVED" : a.status;
        return new Mutant(
                a.clazz,
                a.method,
                a.methodDescription,
                a.indexes,
                a.line,
                a.mutator,
                a.description,
                status,
                killer == null ? "" : killer.killedBy,
                runs);
    }

    private static List<Mutant> read(String run, Path xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = f.newDocumentBuilder().parse(xml.toFile());
        NodeList nodes = doc.getElementsByTagName("mutation");
        List<Mutant> list = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            String mutator = text(e, "mutator");
            list.add(new Mutant(
                    text(e, "mutatedClass"),
                    text(e, "mutatedMethod"),
                    text(e, "methodDescription"),
                    text(e, "indexes"),
                    Integer.parseInt(text(e, "lineNumber")),
                    mutator.substring(mutator.lastIndexOf('.') + 1),
                    text(e, "description"),
                    e.getAttribute("status"),
                    run + ": " + text(e, "killingTest"),
                    List.of(run)));
        }
        return list;
    }

    private static String text(Element e, String tag) {
        NodeList n = e.getElementsByTagName(tag);
        return n.getLength() == 0 ? "" : n.item(0).getTextContent().trim();
    }

    private static Map<String, String> explanations(Path file) throws IOException {
        Map<String, String> m = new TreeMap<>();
        if (!Files.exists(file)) {
            return m;
        }
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] kv = line.split("\t", 2);
            if (kv.length == 2) {
                m.put(kv[0].trim(), kv[1].trim());
            }
        }
        return m;
    }

    private static String machine() {
        return System.getProperty("os.name") + " " + System.getProperty("os.arch") + ", "
                + Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version");
    }

    /** Killed and total per package, in package order. */
    private static Map<String, int[]> perPackage(List<Mutant> all) {
        Map<String, int[]> m = new TreeMap<>();
        for (Mutant x : all) {
            int[] kt = m.computeIfAbsent(x.pkg(), k -> new int[2]);
            kt[1]++;
            if (x.killed()) {
                kt[0]++;
            }
        }
        return m;
    }

    private static String percent(int killed, int total) {
        return total == 0 ? "n/a" : String.format(java.util.Locale.ROOT, "%.1f", 100.0 * killed / total);
    }

    private static List<Mutant> survivors(List<Mutant> all) {
        return all.stream()
                .filter(m -> !m.killed())
                .sorted((a, b) ->
                        a.clazz.equals(b.clazz) ? Integer.compare(a.line, b.line) : a.clazz.compareTo(b.clazz))
                .toList();
    }

    private static String json(
            List<Mutant> all, List<String> runs, String command, String machine, Map<String, String> explanations) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"command\": ").append(q(command)).append(",\n");
        sb.append("  \"machine\": ").append(q(machine)).append(",\n");
        sb.append("  \"generated\": ")
                .append(q(Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()))
                .append(",\n");
        sb.append("  \"runs\": [")
                .append(String.join(", ", runs.stream().map(MutationResults::q).toList()))
                .append("],\n");
        sb.append("  \"packages\": [\n");
        List<String> rows = new ArrayList<>();
        perPackage(all)
                .forEach((pkg, kt) -> rows.add("    {\"package\": " + q(pkg) + ", \"killed\": " + kt[0]
                        + ", \"mutants\": " + kt[1] + ", \"score\": " + percent(kt[0], kt[1]) + "}"));
        sb.append(String.join(",\n", rows)).append("\n  ],\n");
        sb.append("  \"survivors\": [\n");
        List<String> surv = new ArrayList<>();
        for (Mutant m : survivors(all)) {
            surv.add("    {\"class\": " + q(m.clazz) + ", \"method\": " + q(m.method) + ", \"line\": " + m.line
                    + ", \"mutator\": " + q(m.mutator) + ", \"status\": " + q(m.status) + ", \"description\": "
                    + q(m.description) + ", \"explanation\": " + q(explanations.getOrDefault(m.key(), "")) + "}");
        }
        sb.append(String.join(",\n", surv)).append("\n  ]\n}\n");
        return sb.toString();
    }

    private static String markdown(
            List<Mutant> all, List<String> runs, String command, String machine, Map<String, String> explanations) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Mutation testing: how strong the TCK is\n\n");
        sb.append("Generated by `io.distlock.build.MutationResults` from PIT's results; do not edit by hand.\n");
        sb.append("Command: `")
                .append(command)
                .append("`; machine: ")
                .append(machine)
                .append(".\n\n");
        sb.append("PIT mutates the classes of the packages below and runs on each mutant: ")
                .append(String.join(", ", runs))
                .append(". A mutant is killed when any\n");
        sb.append(
                "of them fails on it (or it hangs and times out). Surviving mutants are listed below, each with why\n");
        sb.append("it is equivalent (no test can tell it from the original) or what it leaves unchecked, from\n");
        sb.append("`docs/mutation-explanations.tsv`.\n\n");
        sb.append("| package | killed | mutants | score (%) |\n|---|---|---|---|\n");
        int killed = 0;
        for (Map.Entry<String, int[]> e : perPackage(all).entrySet()) {
            int[] kt = e.getValue();
            killed += kt[0];
            sb.append("| `")
                    .append(e.getKey())
                    .append("` | ")
                    .append(kt[0])
                    .append(" | ")
                    .append(kt[1])
                    .append(" | ")
                    .append(percent(kt[0], kt[1]))
                    .append(" |\n");
        }
        sb.append("| all | ")
                .append(killed)
                .append(" | ")
                .append(all.size())
                .append(" | ")
                .append(percent(killed, all.size()))
                .append(" |\n\n");
        List<Mutant> surv = survivors(all);
        sb.append("## Surviving mutants (").append(surv.size()).append(")\n\n");
        sb.append("| class | line | method | mutator | status | mutation | why it survives |\n");
        sb.append("|---|---|---|---|---|---|---|\n");
        for (Mutant m : surv) {
            String why = explanations.getOrDefault(m.key(), "**not explained**");
            sb.append("| `")
                    .append(m.clazz.substring(m.clazz.lastIndexOf('.') + 1))
                    .append("` | ")
                    .append(m.line)
                    .append(" | `")
                    .append(m.method)
                    .append("` | ")
                    .append(m.mutator)
                    .append(" | ")
                    .append(m.status)
                    .append(" | ")
                    .append(m.description.replace("|", "\\|"))
                    .append(" | ")
                    .append(why.replace("|", "\\|"))
                    .append(" |\n");
        }
        return sb.toString();
    }

    private static String q(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 0x20) {
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
