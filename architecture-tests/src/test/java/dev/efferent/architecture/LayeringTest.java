package dev.efferent.architecture;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real modules of this reactor keep to the layering. */
class LayeringTest {
    private final Map<String, ModuleDescriptor> modules = ReactorModules.built();

    @Test
    void everyModuleOfTheReactorIsChecked() {
        Map<String, String> declared = ReactorModules.declared(Path.of(System.getProperty("efferent.reactor.root")));
        List<String> missing = declared.entrySet().stream()
                .filter(e -> !modules.containsKey(e.getValue()))
                .map(e -> e.getKey() + " (" + e.getValue() + ")").toList();
        assertTrue(missing.isEmpty(), "modules of the reactor that this test does not see: " + missing
                + "; add each as a test dependency in architecture-tests/pom.xml");
    }

    @Test
    void modulesKeepToTheLayering() {
        List<String> violations = new Layering(modules.values()).violations();
        assertEquals(List.of(), violations, "the layering is broken:\n" + String.join("\n", violations));
    }
}
