package dev.efferent.architecture;

import java.lang.module.ModuleDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rules of which module may require which (ARCHITECTURE.md, "Modules"), checked over a set of module descriptors. Each
 * broken rule is one line naming both modules and what to do instead.
 */
final class Layering {
    /** What third parties compile against: they may need the JDK and each other, nothing else. */
    static final Set<String> SPIS = Set.of("efferent.plugin.api", "efferent.tools.spi", "efferent.channel.spi",
            "efferent.queue.spi", "efferent.store.spi", "efferent.model.spi");
    /** Assembly and {@code main} only. */
    static final Set<String> APPS = Set.of("efferent.brain", "efferent.worker", "efferent.chat");
    /** The settings every SPI shares: the JDK's base alone. */
    static final String PLUGIN_API = "efferent.plugin.api";
    static final String BENCH = "efferent.bench";
    static final String AGENT = "efferent.agent";

    private final Map<String, ModuleDescriptor> modules = new TreeMap<>();

    Layering(Collection<ModuleDescriptor> descriptors) {
        descriptors.forEach(d -> modules.put(d.name(), d));
    }

    /**
     * A provider: it offers a service to others and exports nothing to everyone. It is reached through its SPI and
     * {@code ServiceLoader}, so nothing may require it. A service the module also {@code uses} is its own (the brain
     * finds its built-in features as it would find anyone's, decision 39): that does not make it a provider.
     */
    static boolean provider(ModuleDescriptor module) {
        return module.provides().stream().anyMatch(p -> !module.uses().contains(p.service()))
                && module.exports().stream().allMatch(ModuleDescriptor.Exports::isQualified);
    }

    /** Every broken rule, one line each; empty when the modules keep to the layering. */
    List<String> violations() {
        List<String> found = new ArrayList<>();
        for (ModuleDescriptor module : modules.values()) {
            String name = module.name();
            for (ModuleDescriptor.Requires requires : module.requires()) {
                String target = requires.name();
                ModuleDescriptor required = modules.get(target);
                if (required != null && provider(required)) {
                    found.add(name + (provider(module) ? " (a provider)" : "") + " requires " + target
                            + ", a provider: providers are found through their SPI with ServiceLoader; require the SPI"
                            + " and put the provider on the module path (or in the jlink roots) instead");
                }
                if (target.equals(AGENT) && !APPS.contains(name) && !name.equals(BENCH)) {
                    found.add(name + " requires " + AGENT + ": only the apps and bench may; plug into the agent"
                            + " through efferent.assistant.api (Extension, Calls, AssistantHost) instead");
                }
                if (APPS.contains(target) && !name.equals(BENCH)) {
                    found.add(name + " requires " + target + ", an app: apps assemble modules and nothing builds on"
                            + " them; move what is shared into a kernel module");
                }
                if (SPIS.contains(name) && !jdk(target) && !SPIS.contains(target)) {
                    found.add(name + " (an SPI) requires " + target + ": an SPI may need only the JDK and other SPIs,"
                            + " so that a third-party plugin compiles against it alone");
                }
                if (name.equals(PLUGIN_API) && !target.startsWith("java.")) {
                    found.add(name + " requires " + target + ": the settings module every SPI shares needs java.*"
                            + " modules only");
                }
                if (helidonServerOrClient(target) && !APPS.contains(name) && !name.equals(BENCH)) {
                    found.add(name + " requires " + target + ": only the apps (and bench) need Helidon's server and"
                            + " client; give the module a small seam of its own (as WorkerLink is) instead");
                }
            }
        }
        return found;
    }

    private static boolean jdk(String module) {
        return module.startsWith("java.") || module.startsWith("jdk.");
    }

    private static boolean helidonServerOrClient(String module) {
        return module.startsWith("io.helidon.webserver") || module.startsWith("io.helidon.webclient");
    }
}
