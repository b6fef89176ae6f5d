package dev.efferent.router;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What third parties compile against needs the JDK and nothing else (decision 0002), read from the descriptors. */
class SpiModulesTest {
    private static final List<String> SPIS = List.of("efferent.plugin.api", "efferent.tools.spi",
            "efferent.channel.spi", "efferent.queue.spi");

    @Test
    void theSpisRequireNothingOutsideTheJdkAndEachOther() {
        for (String name : SPIS) {
            ModuleDescriptor descriptor = ModuleLayer.boot().findModule(name)
                    .orElseThrow(() -> new AssertionError(name + " is not on the module path")).getDescriptor();
            Set<String> foreign = descriptor.requires().stream().map(ModuleDescriptor.Requires::name)
                    .filter(r -> !r.startsWith("java.") && !r.startsWith("jdk.") && !SPIS.contains(r))
                    .collect(Collectors.toSet());
            assertEquals(Set.of(), foreign, name + " requires modules outside the JDK");
        }
        assertTrue(ModuleLayer.boot().findModule("efferent.plugin.api").orElseThrow().getDescriptor().requires()
                .stream().allMatch(r -> r.name().startsWith("java.")), "the settings module needs java.base only");
    }
}
