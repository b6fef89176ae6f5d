package dev.efferent.core.tools;

import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.plugin.PluginRegistry;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocalToolsTest {
    @TempDir
    Path dir;

    private static PluginRegistry<ToolkitProvider> fake() {
        return PluginRegistry.<ToolkitProvider>builder("toolkit", ToolkitProvider::name).discovery(false)
                .add(new ToolkitProvider() {
                    @Override
                    public String name() {
                        return "fake";
                    }

                    @Override
                    public Toolkit create(Settings settings) {
                        return new FakeToolkit();
                    }
                }).build();
    }

    @Test
    void rootsComeFromConfigurationAndDefaultToTheHomeLessItsCredentials() throws IOException {
        Config none = ConfigLoader.load(Map.of(), Map.of());
        Path home = Path.of(System.getProperty("user.home"));
        AllowedRoots defaults = LocalTools.roots(none.get("tools"));
        assertEquals(List.of(home.toRealPath()), defaults.paths());
        assertTrue(defaults.isHidden(home.resolve(".ssh/id_ed25519")) && defaults.isHidden(home.resolve(".efferent"))
                && defaults.isHidden(home.resolve(".aws/credentials")), defaults.hidden().toString());
        assertFalse(defaults.isHidden(home.resolve(".bashrc")));
        // Set, even to nothing, the list replaces the default (as for the shell's sandbox).
        Config nothing = ConfigLoader.load(Map.of("EFFERENT_TOOLS_SHELL_HIDE", ""), Map.of());
        assertTrue(LocalTools.roots(nothing.get("tools")).hidden().isEmpty());
        Config two = ConfigLoader.load(Map.of("EFFERENT_TOOLS_ROOTS", dir + "," + dir.getParent()),
                Map.of());
        assertEquals(List.of(dir.toRealPath(), dir.getParent().toRealPath()), LocalTools.roots(two.get("tools")).paths());
    }

    @Test
    void missingRootIsAConfigurationError() {
        Config config = ConfigLoader.load(Map.of("EFFERENT_TOOLS_ROOTS", dir.resolve("gone").toString()),
                Map.of());
        ConfigException e = assertThrows(ConfigException.class, () -> LocalTools.roots(config.get("tools")));
        assertTrue(e.getMessage().startsWith("tools.roots: allowed root '" + dir.resolve("gone")), e.getMessage());
    }

    @Test
    void toolkitsCanBeDisabled() {
        Config on = ConfigLoader.load(Map.of("EFFERENT_TOOLS_ROOTS", dir.toString()), Map.of());
        try (LocalToolExecutor executor = LocalTools.open(on, fake())) {
            assertTrue(executor.catalog().find("echo").isPresent());
        }
        Config off = ConfigLoader.load(Map.of("EFFERENT_TOOLS_ROOTS", dir.toString(),
                "EFFERENT_TOOLS_FAKE_ENABLED", "false"), Map.of());
        try (LocalToolExecutor executor = LocalTools.open(off, fake())) {
            assertEquals(List.of(), executor.catalog().names());
        }
    }
}
