package io.distlock;

import java.nio.charset.StandardCharsets;

/**
 * The one rule for lock names, shared by every backend, and the safe encoding that backends use to
 * turn a name into a Redis key, a ZooKeeper path segment, an etcd key or a SQL value.
 *
 * <p>A valid lock name:
 *
 * <ul>
 *   <li>is not {@code null}, not empty and not blank (only whitespace);
 *   <li>is at most {@value #MAX_UTF8_BYTES} bytes long in UTF-8;
 *   <li>contains no ISO control characters (U+0000–U+001F, U+007F–U+009F);
 *   <li>is well-formed UTF-16 (no unpaired surrogate).
 * </ul>
 *
 * Everything else is allowed, including {@code /}, {@code ..}, {@code {}}, {@code %}, quotes,
 * SQL and Lua metacharacters and any Unicode letter: backends never interpret a name, they encode
 * it with {@link #encode(String)} or bind it as a parameter.
 */
public final class LockNames {

    /** Maximum length of a lock name in UTF-8 bytes. */
    public static final int MAX_UTF8_BYTES = 256;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockNames() {}

    /**
     * Checks {@code name} against the rule.
     *
     * @return {@code name}
     * @throws IllegalArgumentException naming the argument and the rule it breaks
     */
    public static String validate(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("lock name must not be empty");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank (only whitespace)");
        }
        int bytes = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(String.format(
                        "lock name must not contain control characters (found U+%04X at index %d)", (int) c, i));
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= name.length() || !Character.isLowSurrogate(name.charAt(i + 1))) {
                    throw new IllegalArgumentException(
                            "lock name must be well-formed UTF-16 (unpaired surrogate at index " + i + ")");
                }
                bytes += 4;
                i++;
                continue;
            }
            if (Character.isLowSurrogate(c)) {
                throw new IllegalArgumentException(
                        "lock name must be well-formed UTF-16 (unpaired surrogate at index " + i + ")");
            }
            bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        if (bytes > MAX_UTF8_BYTES) {
            throw new IllegalArgumentException(
                    "lock name must be at most " + MAX_UTF8_BYTES + " UTF-8 bytes (was " + bytes + ")");
        }
        return name;
    }

    /**
     * Encodes a valid name into {@code [A-Za-z0-9_-]} and {@code %XX} escapes of its UTF-8 bytes.
     * The encoding is injective (two different names never give the same string), contains no
     * {@code /}, {@code .}, braces, quotes or whitespace, and is at most {@code 3 *
     * MAX_UTF8_BYTES} characters long.
     *
     * @throws IllegalArgumentException if {@code name} breaks the rule
     */
    public static String encode(String name) {
        validate(name);
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(utf8.length + 8);
        for (byte b : utf8) {
            int v = b & 0xFF;
            if ((v >= 'a' && v <= 'z') || (v >= 'A' && v <= 'Z') || (v >= '0' && v <= '9') || v == '_' || v == '-') {
                sb.append((char) v);
            } else {
                sb.append('%').append(HEX[v >>> 4]).append(HEX[v & 0xF]);
            }
        }
        return sb.toString();
    }

    /** Inverse of {@link #encode(String)}. */
    public static String decode(String encoded) {
        byte[] out = new byte[encoded.length()];
        int n = 0;
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                if (i + 2 >= encoded.length()) {
                    throw new IllegalArgumentException("encoded lock name has a truncated escape at index " + i);
                }
                out[n++] = (byte) Integer.parseInt(encoded, i + 1, i + 3, 16);
                i += 2;
            } else {
                out[n++] = (byte) c;
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }
}
