package dev.efferent.core.plugin;

import dev.efferent.core.tools.ToolCatalog;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolkitProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Plugins dropped into a plugins directory, each loaded into a layer of its own; broken ones named. */
class PluginLayersTest {
    @TempDir
    Path work;

    private Path plugins() throws IOException {
        return Files.createDirectories(work.resolve("plugins"));
    }

    private Path good(Path dir) throws IOException {
        return PluginJars.build(work, dir.resolve("good.jar"), PluginJars.toolkit("test.good", "good", ""),
                List.of(PluginJars.spi()));
    }

    @Test
    void aToolkitInAPluginJarJoinsTheCatalogWithItsOrigin() throws IOException {
        Path jar = good(plugins());
        PluginLayers layers = PluginLayers.load(List.of(plugins(), work.resolve("missing")), true);
        assertEquals(1, layers.plugins().size());
        PluginRegistry<ToolkitProvider> registry = ToolCatalog.toolkitProviders(layers, true).build();
        assertEquals(List.of("good"), registry.names());
        assertEquals("test.good", registry.info("good").module());
        assertEquals(jar.toString(), registry.info("good").location());
        try (ToolCatalog catalog = ToolCatalog.create(registry, n -> Settings.empty(), n -> true)) {
            assertTrue(catalog.find("good_tool").orElseThrow().origin().describeModule().endsWith("(" + jar + ")"));
        }
    }

    @Test
    void aFolderIsOnePluginWithItsPrivateDependencies() throws IOException {
        Path folder = Files.createDirectories(plugins().resolve("with-deps"));
        Path lib = PluginJars.build(work, folder.resolve("helper.jar"), Map.of(
                "module-info.java", "module test.helper { exports com.example.helper; }",
                "com/example/helper/Greeting.java", "package com.example.helper; public final class Greeting { "
                        + "public static String text() { return \"hi\"; } }"), List.of());
        Map<String, String> sources = new HashMap<>(PluginJars.toolkit("test.uses.helper", "helped",
                "com.example.helper.Greeting.text();"));
        sources.put("module-info.java", "module test.uses.helper { requires efferent.tools.spi; requires test.helper; "
                + "provides dev.efferent.tools.spi.ToolkitProvider with com.example.helped.Provider; }");
        PluginJars.build(work, folder.resolve("helped.jar"), sources, List.of(PluginJars.spi(), lib));
        PluginLayers layers = PluginLayers.load(List.of(plugins()), true);
        assertEquals(List.of("helped"), ToolCatalog.toolkitProviders(layers, true).build().names());
    }

    @Test
    void aJarWithABadDescriptorIsNamedWithTheCause() throws IOException {
        Path classes = Files.createDirectories(work.resolve("garbage"));
        Files.write(classes.resolve("module-info.class"), new byte[]{1, 2, 3, 4});
        Path jar = PluginJars.jar(classes, plugins().resolve("broken.jar"));
        PluginException e = assertThrows(PluginException.class, () -> PluginLayers.load(List.of(plugins()), true));
        assertTrue(e.getMessage().startsWith("plugin " + jar + " cannot be read: "), e.getMessage());
    }

    @Test
    void aMissingDependencyIsNamed() throws IOException {
        Path stub = PluginJars.build(work, work.resolve("stub/stub.jar"), Map.of("module-info.java", "module test.stub {}"),
                List.of());
        Map<String, String> sources = new HashMap<>(PluginJars.toolkit("test.needs.stub", "needy", ""));
        sources.put("module-info.java", "module test.needs.stub { requires efferent.tools.spi; requires test.stub; "
                + "provides dev.efferent.tools.spi.ToolkitProvider with com.example.needy.Provider; }");
        Path jar = PluginJars.build(work, plugins().resolve("needy.jar"), sources, List.of(PluginJars.spi(), stub));
        PluginException e = assertThrows(PluginException.class, () -> PluginLayers.load(List.of(plugins()), true));
        assertTrue(e.getMessage().startsWith("plugin " + jar + " cannot be loaded: "), e.getMessage());
        assertTrue(e.getMessage().contains("test.stub"), e.getMessage());
    }

    @Test
    void aProviderThatThrowsIsNamedWithItsJar() throws IOException {
        Path jar = PluginJars.build(work, plugins().resolve("thrower.jar"), PluginJars.toolkit("test.thrower", "thrower",
                "if (true) throw new IllegalStateException(\"no licence key\");"), List.of(PluginJars.spi()));
        PluginLayers layers = PluginLayers.load(List.of(plugins()), true);
        PluginException e = assertThrows(PluginException.class, () -> ToolCatalog.toolkitProviders(layers, true).build());
        assertTrue(e.getMessage().contains("in module test.thrower (" + jar + ") failed to load"), e.getMessage());
        assertTrue(e.getMessage().contains("no licence key"), e.getMessage());
    }

    @Test
    void brokenPluginsCanBeSkippedByConfiguration() throws IOException {
        good(plugins());
        Files.write(plugins().resolve("not-a-jar.jar"), new byte[]{0, 1, 2});
        PluginLayers layers = PluginLayers.load(List.of(plugins()), false);
        assertEquals(1, layers.plugins().size());
        assertEquals(1, layers.failures().size());
        assertTrue(layers.failures().getFirst().contains("not-a-jar.jar"), layers.failures().toString());
        assertEquals(List.of("good"), ToolCatalog.toolkitProviders(layers, false).build().names());
    }
}
