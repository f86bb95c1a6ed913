package io.distlock.testing.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of a SQL script on the class path (a backend's shipped {@code schema.sql}), as an
 * administrator would run them: lines starting with {@code --} dropped, split at {@code ;}.
 */
public final class SqlScript {
    private SqlScript() {}

    /** The statements of {@code resource} (an absolute class-path name) as they are. */
    public static List<String> statements(String resource) {
        return statements(resource, "", "");
    }

    /**
     * The statements of {@code resource} (an absolute class-path name), with every {@code from}
     * replaced by {@code to} (a table name of the options under test).
     *
     * @throws IllegalArgumentException if the resource is not on the class path
     */
    public static List<String> statements(String resource, String from, String to) {
        String sql;
        try (InputStream in = SqlScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException(resource + " is not on the class path");
            }
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StringBuilder code = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (!line.startsWith("--")) {
                code.append(line).append('\n');
            }
        }
        List<String> out = new ArrayList<>();
        for (String stmt : code.toString().split(";")) {
            if (!stmt.isBlank()) {
                out.add((from.isEmpty() ? stmt : stmt.replace(from, to)).trim());
            }
        }
        return out;
    }
}
