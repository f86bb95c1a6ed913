package io.distlock.spi;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the query parameters of a provider URI with clear errors, and redacts credentials for
 * messages. Each parameter may be read once; {@link #rejectUnknown()} then fails for any parameter
 * nobody read, listing the accepted ones.
 */
public final class UriParameters {
    private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    /** {@code //user:password@}: the password runs to the last {@code @} of the authority (it may contain {@code @}). */
    private static final Pattern USERINFO = Pattern.compile("(//[^/?#@:]*):[^/?#]*@");
    /** {@code //secret@}: a user info without a colon, which Redis and Redlock read as a password. */
    private static final Pattern LONE_USERINFO = Pattern.compile("(//)[^/?#:]*@");

    private final String backend;
    private final String redactedUri;
    private final Map<String, String> values = new LinkedHashMap<>();
    private final Set<String> known = new TreeSet<>();

    private UriParameters(URI uri, String backend) {
        this.backend = backend;
        this.redactedUri = redact(uri);
        String query = uri.getRawQuery();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String k = decode(eq < 0 ? pair : pair.substring(0, eq));
                String v = eq < 0 ? "" : decode(pair.substring(eq + 1));
                if (values.put(k, v) != null) {
                    throw error("parameter '" + k + "' is given twice");
                }
            }
        }
    }

    /** Parses the query of {@code uri}. */
    public static UriParameters of(URI uri, String backend) {
        return new UriParameters(uri, backend);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /**
     * Percent-decodes the user info or the path of a provider URI (raw, as {@link URI#getRawUserInfo()}
     * gives it) as RFC 3986 defines it: {@code %XX} sequences become UTF-8 characters and a {@code +}
     * stays a plus. ({@link URLDecoder} decodes HTML form data, where {@code +} is a space: a password
     * {@code p+w} would have become {@code "p w"}.) Query parameter values are form-decoded ({@code +}
     * is a space there; write a plus as {@code %2B}).
     *
     * @throws IllegalArgumentException if a {@code %} is not followed by two hex digits
     */
    public static String decodeComponent(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** {@code uri} as a string with any password replaced by {@code ****}. */
    public static String redact(URI uri) {
        return redact(uri.toString());
    }

    /**
     * {@code uri} with any password replaced by {@code ****}; also masks {@code password=} parameters
     * and a user info without a colon ({@code redis://secret@host}, which Redis URIs read as the
     * password).
     */
    public static String redact(String uri) {
        Matcher m = USERINFO.matcher(uri);
        String s = m.replaceAll("$1:****@");
        s = LONE_USERINFO.matcher(s).replaceAll("$1****@");
        return s.replaceAll("(?i)(password|pass|pwd)=[^&]*", "$1=****");
    }

    public String string(String key, String defaultValue) {
        known.add(key);
        String v = values.get(key);
        return v == null ? defaultValue : v;
    }

    public Integer integer(String key, Integer defaultValue) {
        known.add(key);
        String v = values.get(key);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Integer.valueOf(v.trim());
        } catch (NumberFormatException e) {
            throw error("parameter '" + key + "' must be an integer (was '" + v + "')");
        }
    }

    public Boolean bool(String key, Boolean defaultValue) {
        known.add(key);
        String v = values.get(key);
        if (v == null) {
            return defaultValue;
        }
        switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true":
            case "yes":
            case "1":
                return true;
            case "false":
            case "no":
            case "0":
                return false;
            default:
                throw error("parameter '" + key + "' must be true or false (was '" + v + "')");
        }
    }

    /** A duration written as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d} or ISO-8601. */
    public Duration duration(String key, Duration defaultValue) {
        known.add(key);
        String v = values.get(key);
        if (v == null) {
            return defaultValue;
        }
        return parseDuration(key, v.trim());
    }

    private Duration parseDuration(String key, String v) {
        Matcher m = SIMPLE_DURATION.matcher(v);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "ms":
                    return Duration.ofMillis(n);
                case "s":
                    return Duration.ofSeconds(n);
                case "m":
                    return Duration.ofMinutes(n);
                case "h":
                    return Duration.ofHours(n);
                default:
                    return Duration.ofDays(n);
            }
        }
        try {
            return Duration.parse(v);
        } catch (DateTimeParseException e) {
            throw error("parameter '" + key + "' must be a duration such as 500ms, 30s, 5m or PT30S (was '" + v + "')");
        }
    }

    /**
     * Applies the common parameters ({@code leaseTime}, {@code autoRenew}, {@code maxHoldTime},
     * {@code maxRenewals}) to {@code base}.
     */
    public LockOptions lockOptions(LockOptions base) {
        LockOptions.Builder b = base.mutate();
        try {
            Duration lease = duration("leaseTime", null);
            if (lease != null) {
                b.leaseTime(lease);
            }
            Boolean renew = bool("autoRenew", null);
            if (renew != null) {
                b.autoRenew(renew);
            }
            Duration cap = duration("maxHoldTime", null);
            if (cap != null) {
                b.maxHoldTime(cap);
            }
            Integer renewals = integer("maxRenewals", null);
            if (renewals != null) {
                b.maxRenewals(renewals);
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(e.getMessage() + " in " + redactedUri, backend, e);
        }
    }

    /** @throws LockConfigurationException naming any parameter not read so far and the accepted ones */
    public void rejectUnknown() {
        Set<String> unknown = new TreeSet<>(values.keySet());
        unknown.removeAll(known);
        if (!unknown.isEmpty()) {
            throw error("unknown parameter(s) " + unknown + "; accepted: " + known);
        }
    }

    /** A configuration error that names the redacted URI. */
    public LockConfigurationException error(String message) {
        return new LockConfigurationException(message + " in " + redactedUri, backend);
    }
}
