package io.distlock;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockProvidersDuplicateSchemeTest {

    @Test
    void open_twoFactoriesClaimOneScheme_clearErrorNamingBoth(@TempDir Path dir) throws Exception {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(
                services.resolve("io.distlock.spi.LockProviderFactory"), DuplicateSchemeFactory.class.getName() + "\n");
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, previous)) {
            Thread.currentThread().setContextClassLoader(loader);
            assertThatThrownBy(() -> LockProviders.open("mem://x"))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("two lock backends claim scheme 'mem'")
                    .hasMessageContaining("io.distlock.memory.MemoryLockProviderFactory")
                    .hasMessageContaining(DuplicateSchemeFactory.class.getName());
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }
}
