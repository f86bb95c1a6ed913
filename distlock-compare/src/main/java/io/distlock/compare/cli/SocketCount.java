package io.distlock.compare.cli;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Counts the established TCP connections from this machine to given servers, from Linux's {@code
 * /proc/net/tcp} and {@code /proc/net/tcp6} (the client side of each connection: its remote end is
 * the server). The same count for every backend, local or remote, whatever the server's own
 * statistics offer; empty where {@code /proc} is not there.
 */
final class SocketCount {
    private static final String ESTABLISHED = "01";

    private SocketCount() {}

    /** A counter of connections to any of {@code nodes} ({@code host:port}); empty when it cannot count. */
    static Supplier<OptionalLong> to(List<String> nodes) {
        List<String[]> wanted = new ArrayList<>();
        for (String n : nodes) {
            int colon = n.lastIndexOf(':');
            String port = String.format("%04X", Integer.parseInt(n.substring(colon + 1)));
            try {
                for (InetAddress a : InetAddress.getAllByName(n.substring(0, colon))) {
                    for (String hex : procHex(a)) {
                        wanted.add(new String[] {hex, port});
                    }
                }
            } catch (IOException e) {
                return OptionalLong::empty;
            }
        }
        return () -> {
            try {
                long count = 0;
                for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                    Path p = Path.of(file);
                    if (!Files.isReadable(p)) {
                        continue;
                    }
                    for (String line : Files.readAllLines(p, StandardCharsets.US_ASCII)) {
                        String[] f = line.trim().split("\\s+");
                        if (f.length < 4 || !f[3].equals(ESTABLISHED)) {
                            continue;
                        }
                        int colon = f[2].indexOf(':');
                        if (colon < 0) {
                            continue;
                        }
                        String addr = f[2].substring(0, colon);
                        String port = f[2].substring(colon + 1);
                        for (String[] w : wanted) {
                            if (w[0].equals(addr) && w[1].equals(port)) {
                                count++;
                                break;
                            }
                        }
                    }
                }
                return OptionalLong.of(count);
            } catch (IOException | RuntimeException e) {
                return OptionalLong.empty();
            }
        };
    }

    /**
     * How {@code a} appears in {@code /proc/net/tcp[6]}: each 32-bit word in the machine's byte
     * order (little-endian on the machines this runs on); an IPv4 address also as IPv4-mapped IPv6.
     */
    private static List<String> procHex(InetAddress a) {
        byte[] b = a.getAddress();
        List<String> out = new ArrayList<>();
        if (a instanceof Inet4Address) {
            String v4 = words(b);
            out.add(v4);
            out.add("0000000000000000FFFF0000" + v4);
        } else {
            out.add(words(b));
        }
        return out;
    }

    private static String words(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int w = 0; w < b.length; w += 4) {
            for (int i = 3; i >= 0; i--) {
                sb.append(String.format(Locale.ROOT, "%02X", b[w + i] & 0xff));
            }
        }
        return sb.toString();
    }
}
