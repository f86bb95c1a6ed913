package io.distlock.testing.servers;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/** Real requests used for readiness and state checks: RESP, HTTP JSON, ZooKeeper four-letter words. */
final class Probes {
    private static final int IO_TIMEOUT_MILLIS = 2000;

    private Probes() {}

    /**
     * Polls {@code condition} until it returns true, failing after {@code timeout} (measured with
     * {@code System.nanoTime}) or as soon as {@code process} (if not null) exits.
     */
    static void await(String what, Duration timeout, SupervisedProcess process, Callable<Boolean> condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (true) {
            try {
                if (Boolean.TRUE.equals(condition.call())) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ServerStartException("interrupted while waiting for " + what, e);
            } catch (Exception e) {
                last = e;
            }
            if (process != null && !process.isAlive()) {
                throw new ServerStartException(what + ": the process exited. Log:\n" + process.logTail(3000), last);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new ServerStartException(
                        what + ": not ready after " + timeout.toMillis() + " ms"
                                + (last == null ? "" : " (last error: " + last + ")")
                                + (process == null ? "" : ". Log:\n" + process.logTail(3000)),
                        last);
            }
            LockSupport.parkNanos(25_000_000L);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new ServerStartException("interrupted while waiting for " + what);
            }
        }
    }

    /** Sends one Redis command and returns the reply (bulk/simple strings as String, arrays as List). */
    static Object redis(String host, int port, String... args) throws IOException {
        return redis(RedisAccess.PLAIN, host, port, args);
    }

    /**
     * Sends one Redis command over a new connection opened with {@code access} (TLS, {@code AUTH}
     * first when it has credentials) and returns the reply.
     */
    static Object redis(RedisAccess access, String host, int port, String... args) throws IOException {
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), IO_TIMEOUT_MILLIS);
            plain.setSoTimeout(IO_TIMEOUT_MILLIS);
            Socket s = plain;
            if (access.tls() != null) {
                javax.net.ssl.SSLSocket ssl =
                        (javax.net.ssl.SSLSocket) access.tls().createSocket(plain, host, port, true);
                ssl.setSoTimeout(IO_TIMEOUT_MILLIS);
                ssl.startHandshake();
                s = ssl;
            }
            try {
                OutputStream out = s.getOutputStream();
                BufferedInputStream in = new BufferedInputStream(s.getInputStream());
                if (access.password() != null) {
                    if (access.user() == null) {
                        send(out, "AUTH", access.password());
                    } else {
                        send(out, "AUTH", access.user(), access.password());
                    }
                    readReply(in);
                }
                send(out, args);
                return readReply(in);
            } finally {
                s.close();
            }
        }
    }

    private static void send(OutputStream out, String... args) throws IOException {
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.UTF_8);
            req.writeBytes(("$" + b.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            req.writeBytes(b);
            req.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.write(req.toByteArray());
        out.flush();
    }

    /** How a probe connects to Redis: TLS socket factory (or null) and {@code AUTH} credentials (or null). */
    record RedisAccess(javax.net.ssl.SSLSocketFactory tls, String user, String password) {
        static final RedisAccess PLAIN = new RedisAccess(null, null, null);

        @Override
        public String toString() {
            return "RedisAccess{tls=" + (tls != null) + ", user=" + user + ", password="
                    + (password == null ? "none" : "****") + "}";
        }
    }

    /** {@link #redis} that returns the reply as a String ("" for null). */
    static String redisString(String host, int port, String... args) throws IOException {
        return redisString(RedisAccess.PLAIN, host, port, args);
    }

    /** {@link #redis(RedisAccess, String, int, String...)} that returns the reply as a String ("" for null). */
    static String redisString(RedisAccess access, String host, int port, String... args) throws IOException {
        Object r = redis(access, host, port, args);
        return r == null ? "" : r.toString();
    }

    private static Object readReply(InputStream in) throws IOException {
        int type = in.read();
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IOException("redis error: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] b = in.readNBytes(n + 2);
                return new String(b, 0, n, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(readReply(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type " + type + " " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                in.read();
                break;
            }
            b.write(c);
        }
        if (c == -1) {
            throw new IOException("connection closed");
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** POSTs {@code json} and returns the response body; throws unless 2xx. */
    static String httpPost(String host, int port, String path, String json) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http://" + host + ":" + port + path).openConnection();
        try {
            c.setConnectTimeout(IO_TIMEOUT_MILLIS);
            c.setReadTimeout(IO_TIMEOUT_MILLIS);
            c.setRequestMethod("POST");
            c.setDoOutput(true);
            c.setRequestProperty("Content-Type", "application/json");
            try (OutputStream out = c.getOutputStream()) {
                out.write(json.getBytes(StandardCharsets.UTF_8));
            }
            return body(c);
        } finally {
            c.disconnect();
        }
    }

    /** GETs {@code path} and returns the body; throws unless 2xx. */
    static String httpGet(String host, int port, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http://" + host + ":" + port + path).openConnection();
        try {
            c.setConnectTimeout(IO_TIMEOUT_MILLIS);
            c.setReadTimeout(IO_TIMEOUT_MILLIS);
            return body(c);
        } finally {
            c.disconnect();
        }
    }

    private static String body(HttpURLConnection c) throws IOException {
        int code = c.getResponseCode();
        if (code / 100 != 2) {
            InputStream err = c.getErrorStream();
            String text = err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8);
            throw new IOException("HTTP " + code + " " + text);
        }
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Whether a MySQL/MariaDB server greets a new connection with a protocol-10 handshake (without
     * logging in: no JDBC driver needed). MariaDB sends it only once it accepts connections, after its
     * {@code --init-file}.
     */
    static boolean mysqlGreets(String host, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), IO_TIMEOUT_MILLIS);
            s.setSoTimeout(IO_TIMEOUT_MILLIS);
            // packet header: 3-byte little-endian length, sequence id; then the protocol version
            byte[] head = s.getInputStream().readNBytes(5);
            return head.length == 5 && head[3] == 0 && head[4] == 10;
        }
    }

    /** Sends a ZooKeeper four-letter word and returns the answer. */
    static String fourLetter(String host, int port, String word) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), IO_TIMEOUT_MILLIS);
            s.setSoTimeout(IO_TIMEOUT_MILLIS);
            s.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    /** The value of a {@code "field":"value"} or {@code "field":number} pair in flat JSON, or null. */
    static String jsonField(String json, String field) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "\"" + java.util.regex.Pattern.quote(field) + "\"\\s*:\\s*\"?([^\",}]*)\"?")
                .matcher(json);
        return m.find() ? m.group(1) : null;
    }
}
