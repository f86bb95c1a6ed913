package io.distlock.zookeeper.internal;

import java.util.Objects;

/**
 * The rules for a connect string and for ZooKeeper paths given in options, checked at once with a
 * message naming the option and the rule. Internal API: used by {@code io.distlock.zookeeper}.
 */
public final class ZkPathRules {
    private ZkPathRules() {}

    /**
     * Checks {@code host:port[,host:port...][/chroot]}: hosts non-empty without white space, ports
     * in 1..65535, the chroot a valid path.
     *
     * @return {@code connectString}
     * @throws IllegalArgumentException naming {@code connectString} and the rule
     */
    public static String checkConnectString(String connectString) {
        Objects.requireNonNull(connectString, "connectString must not be null");
        String servers = servers(connectString);
        int slash = connectString.indexOf('/');
        if (slash >= 0) {
            String chroot = connectString.substring(slash);
            if (!chroot.equals("/")) {
                checkPath("connectString chroot", chroot);
            }
        }
        if (servers.isBlank()) {
            throw new IllegalArgumentException(
                    "connectString must name at least one host:port (was '" + connectString + "')");
        }
        for (String hp : servers.split(",", -1)) {
            int colon = hp.lastIndexOf(':');
            String host = colon < 0 ? hp : hp.substring(0, colon);
            if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException(
                        "connectString must be host:port[,host:port...] with non-empty hosts (was '" + connectString
                                + "')");
            }
            if (colon >= 0) {
                String port = hp.substring(colon + 1);
                int p;
                try {
                    p = Integer.parseInt(port);
                } catch (NumberFormatException e) {
                    p = -1;
                }
                if (p < 1 || p > 65535) {
                    throw new IllegalArgumentException(
                            "connectString port must be a number in 1..65535 (was '" + port + "')");
                }
            }
        }
        return connectString;
    }

    /** The {@code host:port[,host:port...]} part of a connect string. */
    static String servers(String connectString) {
        int slash = connectString.indexOf('/');
        return slash < 0 ? connectString : connectString.substring(0, slash);
    }

    /** The chroot of a connect string without its leading {@code /}, or {@code null} for none. */
    static String namespace(String connectString) {
        int slash = connectString.indexOf('/');
        String namespace = slash < 0 ? null : connectString.substring(slash + 1);
        return namespace == null || namespace.isEmpty() ? null : namespace;
    }

    /**
     * Checks an absolute ZooKeeper path: starts with {@code /}, no trailing {@code /}, no empty,
     * {@code .} or {@code ..} segment, no control or reserved characters.
     *
     * @throws IllegalArgumentException naming {@code name} and the rule
     */
    public static void checkPath(String name, String path) {
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException(name + " must start with '/' (was '" + path + "')");
        }
        if (path.length() > 1 && path.endsWith("/")) {
            throw new IllegalArgumentException(name + " must not end with '/' (was '" + path + "')");
        }
        if (path.equals("/")) {
            return;
        }
        for (String segment : path.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException(
                        name + " must not contain empty, '.' or '..' segments (was '" + path + "')");
            }
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                if (Character.isISOControl(c) || (c >= '\ud800' && c <= '\uf8ff') || c == '\ufff0' || c == '\uffff') {
                    throw new IllegalArgumentException(String.format(
                            "%s must not contain control or reserved characters (U+%04X in '%s')",
                            name, (int) c, path));
                }
            }
        }
    }
}
