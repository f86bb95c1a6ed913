package io.distlock.compare.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/** Small clients for the servers' own statistics (request counters), independent of the libraries under test. */
final class Probes {
    private Probes() {}

    /** A ZooKeeper four-letter word's reply. */
    static String fourLetter(String host, int port, String word) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2_000);
            s.setSoTimeout(5_000);
            OutputStream out = s.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return readAll(s.getInputStream());
        }
    }

    /** The body of an HTTP GET. */
    static String httpGet(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
        c.setConnectTimeout(2_000);
        c.setReadTimeout(5_000);
        try (InputStream in = c.getInputStream()) {
            return readAll(in);
        } finally {
            c.disconnect();
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        in.transferTo(b);
        return b.toString(StandardCharsets.UTF_8);
    }

    /** Sum of the values of Prometheus samples whose line starts with {@code metric}. */
    static long sumMetric(String text, String metric) {
        long sum = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(metric)
                    && (line.charAt(metric.length()) == '{' || line.charAt(metric.length()) == ' ')) {
                String v = line.substring(line.lastIndexOf(' ') + 1).trim();
                sum += (long) Double.parseDouble(v);
            }
        }
        return sum;
    }

    /** The value of {@code key} in a "key value" or "key=value" or "key: value" listing. */
    static long field(String text, String key) {
        for (String line : text.split("\n")) {
            String l = line.trim();
            if (l.startsWith(key)) {
                String rest = l.substring(key.length())
                        .replaceFirst("^[\\s:=\\t]+", "")
                        .trim();
                return Long.parseLong(rest.split("[\\s,]")[0]);
            }
        }
        throw new IllegalStateException("no '" + key + "' in server statistics");
    }

    /** {@code redis_version} from an {@code INFO server} reply. */
    static String redisVersion(String infoServer) {
        return infoServer
                .lines()
                .filter(l -> l.startsWith("redis_version:"))
                .findFirst()
                .map(l -> l.substring("redis_version:".length()).trim())
                .orElse("?");
    }
}
