package dev.efferent.architecture;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The guard itself: each rule fails on a module graph that breaks it, with both modules named. */
class LayeringRulesTest {
    private static final String TOOLKITS = "dev.efferent.tools.spi.ToolkitProvider";

    @Test
    void aProviderThatRequiresAnotherProviderFails() {
        List<String> violations = new Layering(List.of(
                spi("efferent.tools.spi"),
                provider("efferent.tools.fs", "efferent.tools.spi"),
                provider("efferent.tools.shell", "efferent.tools.spi", "efferent.tools.fs"))).violations();

        assertEquals(1, violations.size(), violations.toString());
        assertStartsWith("efferent.tools.shell (a provider) requires efferent.tools.fs, a provider", violations.get(0));
    }

    @Test
    void aModuleThatProvidesOnlyWhatItUsesItselfIsNoProvider() {
        String features = "dev.efferent.brain.BrainFeatureProvider";
        ModuleDescriptor brain = ModuleDescriptor.newModule("efferent.brain").packages(Set.of("dev.efferent.brain"))
                .exports(Set.of(), "dev.efferent.brain", Set.of("efferent.bench")).uses(features)
                .provides(features, List.of("dev.efferent.brain.ApiFeatureProvider")).build();
        List<String> violations = new Layering(List.of(brain, kernel("efferent.bench", "efferent.brain")))
                .violations();

        assertEquals(List.of(), violations);
    }

    @Test
    void aFeatureThatRequiresTheAgentFails() {
        List<String> violations = new Layering(List.of(
                kernel("efferent.agent"),
                kernel("efferent.scheduler", "efferent.agent"),
                kernel("efferent.brain", "efferent.agent"),
                kernel("efferent.bench", "efferent.agent"))).violations();

        assertEquals(1, violations.size(), violations.toString());
        assertStartsWith("efferent.scheduler requires efferent.agent: only the apps and bench may", violations.get(0));
    }

    @Test
    void aProviderThatRequiresTheAgentFails() {
        List<String> violations = new Layering(List.of(
                kernel("efferent.agent"), provider("efferent.tools.memory", "efferent.agent"))).violations();

        assertEquals(1, violations.size(), violations.toString());
        assertStartsWith("efferent.tools.memory requires efferent.agent", violations.get(0));
    }

    @Test
    void anSpiThatNeedsMoreThanTheJdkFails() {
        List<String> violations = new Layering(List.of(
                spi("efferent.plugin.api"),
                spi("efferent.model.spi", "efferent.plugin.api", "java.net.http", "com.fasterxml.jackson.databind")))
                .violations();

        assertEquals(1, violations.size(), violations.toString());
        assertStartsWith("efferent.model.spi (an SPI) requires com.fasterxml.jackson.databind", violations.get(0));
    }

    @Test
    void theSettingsModuleThatNeedsAnotherSpiFails() {
        List<String> violations = new Layering(List.of(
                spi("efferent.tools.spi"), spi("efferent.plugin.api", "efferent.tools.spi", "java.logging")))
                .violations();

        assertEquals(1, violations.size(), violations.toString());
        assertStartsWith("efferent.plugin.api requires efferent.tools.spi", violations.get(0));
    }

    @Test
    void aKernelModuleThatRequiresHelidonsServerFails() {
        List<String> violations = new Layering(List.of(
                kernel("efferent.router", "io.helidon.webserver"),
                kernel("efferent.brain", "io.helidon.webserver", "efferent.router"))).violations();

        assertEquals(1, violations.size(), violations.toString());
        assertStartsWith("efferent.router requires io.helidon.webserver", violations.get(0));
    }

    @Test
    void aModuleThatBuildsOnAnAppFails() {
        List<String> violations = new Layering(List.of(
                kernel("efferent.brain"), kernel("efferent.bench", "efferent.brain"),
                kernel("efferent.router", "efferent.brain"))).violations();

        assertEquals(1, violations.size(), violations.toString());
        assertStartsWith("efferent.router requires efferent.brain, an app", violations.get(0));
    }

    private static void assertStartsWith(String expected, String actual) {
        if (!actual.startsWith(expected)) {
            assertEquals(expected, actual);
        }
    }

    private static ModuleDescriptor spi(String name, String... requires) {
        ModuleDescriptor.Builder b = ModuleDescriptor.newModule(name).exports(name.replace("efferent.", "dev.efferent."));
        for (String r : requires) {
            b.requires(r);
        }
        return b.build();
    }

    private static ModuleDescriptor kernel(String name, String... requires) {
        return spi(name, requires);
    }

    private static ModuleDescriptor provider(String name, String... requires) {
        String pkg = name.replace("efferent.", "dev.efferent.");
        ModuleDescriptor.Builder b = ModuleDescriptor.newModule(name).packages(Set.of(pkg))
                .provides(TOOLKITS, List.of(pkg + ".Provider"));
        for (String r : requires) {
            b.requires(r);
        }
        return b.build();
    }
}
