package io.distlock.testing.servers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Locates server binaries of the Debian packages and explains what to install when missing. */
final class Binaries {
    private Binaries() {}

    static Path require(String debianPackage, String... candidates) {
        for (String candidate : candidates) {
            Path p = Paths.get(candidate);
            if (p.isAbsolute()) {
                if (Files.isExecutable(p) || (candidate.endsWith(".jar") && Files.isReadable(p))) {
                    return p;
                }
                continue;
            }
            String path = System.getenv("PATH");
            if (path == null) {
                continue;
            }
            for (String dir : path.split(":")) {
                Path q = Paths.get(dir, candidate);
                if (Files.isExecutable(q)) {
                    return q;
                }
            }
        }
        throw new ServerStartException(missing(debianPackage, String.join(" or ", candidates)));
    }

    static String missing(String debianPackage, String what) {
        return what + " not found: install the Debian package '" + debianPackage
                + "' (apt-get install " + debianPackage + "), or run scripts/install-servers.sh as root,"
                + " which installs every server the tests need";
    }
}
