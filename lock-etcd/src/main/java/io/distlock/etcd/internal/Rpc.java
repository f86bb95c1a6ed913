package io.distlock.etcd.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Bounded waits on jetcd futures. Internal. */
final class Rpc {
    private Rpc() {}

    /**
     * Waits for {@code f} at most {@code timeoutNanos}, uninterruptibly (an interrupt is kept for
     * the caller: the engine turns it into an {@link InterruptedException} and cleans up).
     *
     * @throws BackendUnavailableException on timeout or failure
     */
    static <T> T await(CompletableFuture<T> f, long timeoutNanos, String what, String lockName) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    return f.get(Math.max(0, left), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    f.cancel(true);
                    throw new BackendUnavailableException(
                            what + " timed out after " + Duration.ofNanos(timeoutNanos),
                            lockName,
                            EtcdDriver.BACKEND,
                            e);
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    if (isLeaseNotFound(cause)) {
                        throw new LeaseGoneException(cause);
                    }
                    LockConfigurationException refused = refusal(what, lockName, cause);
                    if (refused != null) {
                        throw refused;
                    }
                    throw new BackendUnavailableException(
                            what + " failed: " + cause, lockName, EtcdDriver.BACKEND, cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A refusal that retrying cannot fix: wrong credentials, missing permissions on the key prefix,
     * a server certificate the client does not trust. Messages come from the server or the TLS
     * stack and never contain the password.
     */
    static LockConfigurationException refusal(String what, String lockName, Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLException) {
                return new LockConfigurationException(
                        what + " failed: TLS handshake with the etcd server failed (check trustCertificate: it must"
                                + " be the CA that signed the server's certificate, and the endpoint host must match"
                                + " the certificate): " + c.getMessage() + lockSuffix(lockName),
                        EtcdDriver.BACKEND,
                        t);
            }
            String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(Locale.ROOT);
            if (m.contains("authentication failed")
                    || m.contains("invalid auth token")
                    || m.contains("user name is empty")) {
                return new LockConfigurationException(
                        what + " failed: etcd refused the credentials (check user and password; the password is"
                                + " not shown)" + lockSuffix(lockName),
                        EtcdDriver.BACKEND,
                        t);
            }
            if (m.contains("permission denied")) {
                return new LockConfigurationException(
                        what + " failed: etcd denied permission: the etcd user needs a role with readwrite"
                                + " permission on the key prefix range [keyPrefix, prefix end)" + lockSuffix(lockName),
                        EtcdDriver.BACKEND,
                        t);
            }
        }
        return null;
    }

    /**
     * Whether {@code t} is a refusal that neither a retry nor another member can fix: etcd refused
     * the user and password, or the TLS trust rejected the server's certificate (not any TLS error:
     * a handshake cut by a restarting server is an outage).
     */
    static boolean isDefinitiveRefusal(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.security.cert.CertificateException
                    || c instanceof java.security.cert.CertPathBuilderException
                    || c instanceof java.security.cert.CertPathValidatorException) {
                return true;
            }
            String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(Locale.ROOT);
            if (m.contains("authentication failed") || m.contains("user name is empty")) {
                return true;
            }
        }
        return false;
    }

    private static String lockSuffix(String lockName) {
        return lockName == null ? "" : " (lock '" + lockName + "')";
    }

    static boolean isLeaseNotFound(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && m.toLowerCase(Locale.ROOT).contains("lease not found")) {
                return true;
            }
        }
        return false;
    }

    /** The session lease no longer exists on the server. */
    static final class LeaseGoneException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LeaseGoneException(Throwable cause) {
            super("etcd lease not found", cause);
        }
    }
}
