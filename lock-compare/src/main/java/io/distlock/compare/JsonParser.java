package io.distlock.compare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON that {@link JsonReport} writes: objects become ordered maps, arrays lists, numbers
 * doubles. Strict enough to reject a truncated or hand-mangled file with the offset of the problem.
 */
final class JsonParser {
    private final String text;
    private int pos;

    private JsonParser(String text) {
        this.text = text;
    }

    /**
     * The value {@code text} holds.
     *
     * @throws IllegalArgumentException naming the offset where the text stops being JSON
     */
    static Object parse(String text) {
        JsonParser p = new JsonParser(text);
        Object v = p.next();
        p.blanks();
        if (p.pos != text.length()) {
            throw p.error("end of input");
        }
        return v;
    }

    private Object next() {
        blanks();
        if (pos >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            default:
                return literal();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> members = new LinkedHashMap<>();
        pos++;
        blanks();
        if (peek('}')) {
            pos++;
            return members;
        }
        do {
            blanks();
            String key = string();
            blanks();
            take(':');
            members.put(key, next());
            blanks();
        } while (accept(','));
        take('}');
        return members;
    }

    private List<Object> array() {
        List<Object> items = new ArrayList<>();
        pos++;
        blanks();
        if (peek(']')) {
            pos++;
            return items;
        }
        do {
            items.add(next());
            blanks();
        } while (accept(','));
        take(']');
        return items;
    }

    private String string() {
        take('"');
        StringBuilder out = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (pos >= text.length()) {
                break;
            }
            char escaped = text.charAt(pos++);
            if (escaped == 'u' && pos + 4 <= text.length()) {
                out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                pos += 4;
            } else {
                out.append(
                        switch (escaped) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'f' -> '\f';
                            default -> escaped;
                        });
            }
        }
        throw error("the end of a string");
    }

    private Object literal() {
        for (String word : List.of("true", "false", "null")) {
            if (text.startsWith(word, pos)) {
                pos += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        }
        int from = pos;
        while (pos < text.length() && "+-.eE0123456789".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        try {
            return Double.valueOf(text.substring(from, pos));
        } catch (NumberFormatException e) {
            pos = from;
            throw error("a value");
        }
    }

    private boolean peek(char c) {
        return pos < text.length() && text.charAt(pos) == c;
    }

    private boolean accept(char c) {
        if (peek(c)) {
            pos++;
            return true;
        }
        return false;
    }

    private void take(char c) {
        if (!accept(c)) {
            throw error("'" + c + "'");
        }
    }

    private void blanks() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private IllegalArgumentException error(String expected) {
        return new IllegalArgumentException("results.json is not valid JSON: expected " + expected + " at offset " + pos
                + (pos < text.length() ? " (found '" + text.charAt(pos) + "')" : " (found the end)"));
    }
}
