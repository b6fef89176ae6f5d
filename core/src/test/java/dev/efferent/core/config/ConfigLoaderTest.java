package dev.efferent.core.config;

import io.helidon.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    private Path yaml(String text) throws IOException {
        Path file = dir.resolve("efferent.yaml");
        Files.writeString(file, text);
        return file;
    }

    @Test
    void environmentOverridesTheFileWhichOverridesDefaults() throws IOException {
        Path file = yaml("""
                worker:
                  name: laptop
                  secret: from-file
                hands:
                  enabled: true
                """);
        Config config = ConfigLoader.load(file, Map.of("EFFERENT_WORKER_SECRET", "from-env",
                "HOME", "/ignored"), Map.of("worker.name", "default-name", "server.port", "18789"));
        assertEquals("from-env", config.get("worker.secret").asString().get());
        assertEquals("laptop", config.get("worker.name").asString().get());
        assertEquals(18789, config.get("server.port").asInt().get());
        assertTrue(config.get("hands.enabled").asBoolean().get());
        assertTrue(config.get("home").asString().isEmpty(), "only EFFERENT_* variables are read");
    }

    @Test
    void environmentVariableNamesMapToKeys() {
        assertEquals("worker.secret", ConfigLoader.keyOf("EFFERENT_WORKER_SECRET"));
        assertEquals("tools.shell.max-output-bytes", ConfigLoader.keyOf("EFFERENT_TOOLS_SHELL_MAX__OUTPUT__BYTES"));
        assertEquals("EFFERENT_TOOLS_FS_MAX__READ__BYTES", ConfigLoader.environmentVariableOf("tools.fs.max-read-bytes"));
        Config config = ConfigLoader.load(Map.of("EFFERENT_TOOLS_SHELL_MAX__OUTPUT__BYTES", "2048"),
                Map.of());
        assertEquals(2048, config.get("tools.shell.max-output-bytes").asInt().get());
    }

    @Test
    void yamlListsObjectsAndEmptyFilesAreRead() throws IOException {
        Path file = yaml("""
                tools:
                  roots: [~/projects, /srv/data]
                mcp:
                  servers:
                    - name: files
                      command: [npx, server]
                log:
                  level:
                """);
        Config config = ConfigLoader.load(file, Map.of(), Map.of());
        assertEquals(List.of("~/projects", "/srv/data"), config.get("tools.roots").asList(String.class).get());
        assertEquals("files", config.get("mcp.servers.0.name").asString().get());
        assertEquals(List.of("npx", "server"), config.get("mcp.servers.0.command").asList(String.class).get());
        assertTrue(ConfigLoader.load(yaml(""), Map.of(), Map.of()).get("tools").asNode().isEmpty());
    }

    @Test
    void yamlThatNamesAJavaTypeIsRefusedNotBuilt() throws IOException {
        // A configuration file is data: a tag that would construct an arbitrary class is an error, not an object.
        Path file = yaml("tools: !!java.io.File [\"/etc/passwd\"]\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file, Map.of(),
                Map.of()));
        assertTrue(e.getMessage().contains("could not be read"), e.getMessage());
        // Aliases of collections: a few lines that expand to billions of nodes, or to a list inside itself.
        String laughs = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                + "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n";
        for (String hostile : List.of(laughs, "a: &a [*a]\n")) {
            ConfigException e2 = assertThrows(ConfigException.class, () -> ConfigLoader.load(yaml(hostile),
                    Map.of(), Map.of()));
            assertTrue(e2.getMessage().contains("could not be read"), e2.getMessage());
        }
        ConfigException number = assertThrows(ConfigException.class, () -> ConfigLoader.load(
                yaml("port: !!int abc\n"), Map.of(), Map.of()));
        assertTrue(number.getMessage().contains("could not be read"), number.getMessage());
        ConfigException list = assertThrows(ConfigException.class, () -> ConfigLoader.load(yaml("- a\n- b\n"),
                Map.of(), Map.of()));
        assertTrue(list.getMessage().contains("top level"), list.getMessage());
    }

    @Test
    void missingFileIsAClearError() {
        Path missing = dir.resolve("nope.yaml");
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(missing, Map.of(), Map.of()));
        assertEquals("configuration file '" + missing.toAbsolutePath()
                + "' does not exist; pass an existing YAML file or leave the option out to use defaults", e.getMessage());
    }

    @Test
    void settingsReadListsFromYamlOrCommaSeparatedValues() throws IOException {
        Path file = yaml("""
                tools:
                  roots:
                    - /a
                    - /b
                  fs:
                    max-read-bytes: 4096
                """);
        Config config = ConfigLoader.load(file, Map.of("EFFERENT_TOOLS_EXTRA", "x, y ,,z"), Map.of());
        ConfigSettings tools = new ConfigSettings(config.get("tools"));
        assertEquals(List.of("/a", "/b"), tools.list("roots"));
        assertEquals(List.of("x", "y", "z"), tools.list("extra"));
        assertEquals(4096, new ConfigSettings(config.get("tools.fs")).getLong("max-read-bytes", 1));
        assertEquals(Optional.empty(), tools.get("missing"));
        assertEquals(List.of(), tools.list("missing"));
    }
}
