package io.distlock.etcd.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * etcd endpoints as users write them ({@code host:port} or {@code http(s)://host:port}) and as
 * jetcd takes them (always with a scheme). Internal: public only for {@code EtcdLockProvider}.
 */
public final class Endpoints {
    private static final Pattern ENDPOINT =
            Pattern.compile("(?:(https?)://)?(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9_.-]+):(\\d{1,5})");

    private Endpoints() {}

    /**
     * Checks a list of endpoints.
     *
     * @return the endpoints, trimmed
     * @throws IllegalArgumentException if the list is empty or an endpoint is not {@code
     *     [http(s)://]host:port} with a port in 1..65535
     */
    public static List<String> check(List<String> endpoints) {
        Objects.requireNonNull(endpoints, "endpoints must not be null");
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("endpoints must not be empty");
        }
        List<String> checked = new ArrayList<>();
        for (String e : endpoints) {
            checked.add(check(e));
        }
        return List.copyOf(checked);
    }

    private static String check(String e) {
        if (e == null) {
            throw new IllegalArgumentException("endpoint must not be null");
        }
        String s = e.trim();
        Matcher m = ENDPOINT.matcher(s);
        if (!m.matches()) {
            throw new IllegalArgumentException("endpoint must be host:port or http(s)://host:port (was '" + e + "')");
        }
        int port = Integer.parseInt(m.group(3));
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("endpoint port must be 1..65535 (was '" + e + "')");
        }
        return s;
    }

    /**
     * The endpoints with their scheme: {@code https} if {@code tls} or if any endpoint says {@code
     * https://}, else {@code http}.
     *
     * @throws IllegalArgumentException if TLS is on and an endpoint says {@code http://}
     */
    public static List<String> uris(List<String> endpoints, boolean tls) {
        boolean secure = tls || endpoints.stream().anyMatch(e -> e.startsWith("https://"));
        List<String> out = new ArrayList<>();
        for (String e : endpoints) {
            if (e.startsWith("http://") && secure) {
                throw new IllegalArgumentException("endpoint " + e + " is plain http while TLS is on (tls options"
                        + " enabled, or another endpoint is https): give every endpoint the same scheme");
            }
            out.add(e.startsWith("http://") || e.startsWith("https://") ? e : (secure ? "https://" : "http://") + e);
        }
        return List.copyOf(out);
    }
}
