package dev.efferent.core.tools;

import dev.efferent.core.plugin.PluginException;
import dev.efferent.core.plugin.PluginRegistry;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ToolCatalogTest {

    private static Toolkit toolkit(String name, Tool... tools) {
        return new Toolkit() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Tool> tools() {
                return List.of(tools);
            }
        };
    }

    private static Tool echo(String schema) {
        return FakeToolkit.tool("echo", schema, (p, c) -> ToolResult.text("x"));
    }

    private static ToolkitProvider provider(String name, Toolkit toolkit) {
        return new ToolkitProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Toolkit create(Settings settings) {
                return toolkit;
            }
        };
    }

    @Test
    void aToolkitThatChangesIsReadAgainAndItsListenersHearOfRealChangesOnly() {
        ChangingToolkit changing = new ChangingToolkit(echo("{\"type\":\"object\"}"));
        List<Tool> offered = changing.offered;
        ToolCatalog catalog = ToolCatalog.of(List.of(changing, toolkit("fixed",
                FakeToolkit.tool("fixed", "{\"type\":\"object\"}", (p, c) -> ToolResult.text("x")))));
        List<List<String>> heard = new ArrayList<>();
        catalog.onChange(() -> heard.add(catalog.names()));

        offered.add(FakeToolkit.tool("late", "{\"type\":\"object\"}", (p, c) -> ToolResult.text("x")));
        // A new tool with a broken schema, and one that takes another toolkit's name: left out, not fatal.
        offered.add(FakeToolkit.tool("broken", "{\"type\":\"string\"}", (p, c) -> ToolResult.text("x")));
        offered.add(FakeToolkit.tool("fixed", "{\"type\":\"object\"}", (p, c) -> ToolResult.text("x")));
        changing.changed();
        changing.changed();
        assertEquals(List.of(List.of("echo", "fixed", "late")), heard, "told once: nothing changed the second time");
        assertEquals("fixed", catalog.find("fixed").orElseThrow().toolkit());
    }

    @Test
    void twoToolsWithOneNameFailNamingBothToolkits() {
        PluginException e = assertThrows(PluginException.class, () -> ToolCatalog.of(List.of(
                toolkit("a", echo("{\"type\":\"object\"}")), toolkit("b", echo("{\"type\":\"object\"}")))));
        assertTrue(e.getMessage().startsWith("two tools are named 'echo': one in toolkit 'a' (module efferent.core"),
                e.getMessage());
        assertTrue(e.getMessage().contains("one in toolkit 'b'"), e.getMessage());
    }

    @Test
    void schemaThatIsNotJsonFailsNamingTheTool() {
        PluginException e = assertThrows(PluginException.class,
                () -> ToolCatalog.of(List.of(toolkit("a", echo("{not json")))));
        assertTrue(e.getMessage().startsWith("tool 'echo' of toolkit 'a' has an input schema that is not valid JSON"),
                e.getMessage());
    }

    @Test
    void schemaMustDescribeAnObject() {
        PluginException e = assertThrows(PluginException.class,
                () -> ToolCatalog.of(List.of(toolkit("a", echo("{\"type\":\"string\"}")))));
        assertEquals("tool 'echo' of toolkit 'a' must have an object input schema ({\"type\": \"object\", ...})",
                e.getMessage());
    }

    @Test
    void toolkitThatFailsToStartIsNamedWithItsModule() {
        ToolkitProvider broken = new ToolkitProvider() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public Toolkit create(Settings settings) {
                throw new ToolException("setting 'tools.broken.level' must be a whole number, got 'x'");
            }
        };
        var registry = PluginRegistry.<ToolkitProvider>builder("toolkit", ToolkitProvider::name)
                .discovery(false).add(broken).build();
        PluginException e = assertThrows(PluginException.class,
                () -> ToolCatalog.create(registry, n -> Settings.empty(), n -> true));
        assertTrue(e.getMessage().startsWith("toolkit 'broken' from module efferent.core"), e.getMessage());
        assertTrue(e.getMessage().endsWith("failed to start: setting 'tools.broken.level' must be a whole number, got 'x'"),
                e.getMessage());
    }

    @Test
    void disabledToolkitsAreLeftOut() {
        var registry = PluginRegistry.<ToolkitProvider>builder("toolkit", ToolkitProvider::name).discovery(false)
                .add(provider("fake", new FakeToolkit()))
                .add(provider("other", toolkit("other", FakeToolkit.tool("other_tool", "{\"type\":\"object\"}",
                        (p, c) -> ToolResult.text("")))))
                .build();
        try (ToolCatalog catalog = ToolCatalog.create(registry, n -> Settings.empty(), n -> !n.equals("fake"))) {
            assertEquals(List.of("other_tool"), catalog.names());
            assertEquals("other", catalog.find("other_tool").orElseThrow().toolkit());
        }
    }

    @Test
    void coreAloneHasNoToolkitsOnItsModulePath() {
        assertEquals(List.of(), ToolCatalog.toolkitProviders().build().names());
    }
}
