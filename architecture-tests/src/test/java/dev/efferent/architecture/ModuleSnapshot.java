package dev.efferent.architecture;

import java.lang.module.ModuleDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A module's surface as text, like {@code jar --describe-module} but stable: what it requires, exports, opens, uses
 * and provides, sorted. A change to the API surface becomes a visible diff of the committed snapshot.
 */
final class ModuleSnapshot {
    private ModuleSnapshot() {
    }

    static String of(Collection<ModuleDescriptor> modules) {
        StringBuilder text = new StringBuilder();
        modules.stream().sorted(Comparator.comparing(ModuleDescriptor::name)).forEach(m -> text.append(of(m)));
        return text.toString();
    }

    static String of(ModuleDescriptor module) {
        List<String> lines = new ArrayList<>();
        for (ModuleDescriptor.Requires r : module.requires()) {
            if (r.modifiers().contains(ModuleDescriptor.Requires.Modifier.MANDATED)) {
                continue;
            }
            String modifiers = r.modifiers().stream().map(m -> m.name().toLowerCase() + " ").sorted()
                    .collect(Collectors.joining());
            lines.add("requires " + modifiers + r.name());
        }
        module.exports().forEach(e -> lines.add("exports " + e.source() + targets(e.targets())));
        module.opens().forEach(o -> lines.add("opens " + o.source() + targets(o.targets())));
        module.uses().forEach(u -> lines.add("uses " + u));
        module.provides().forEach(p -> lines.add("provides " + p.service() + " with "
                + p.providers().stream().sorted().collect(Collectors.joining(", "))));
        lines.sort(Comparator.naturalOrder());
        StringBuilder text = new StringBuilder(module.name()).append('\n');
        lines.forEach(l -> text.append("  ").append(l).append('\n'));
        return text.toString();
    }

    private static String targets(Set<String> targets) {
        return targets.isEmpty() ? "" : " to " + targets.stream().sorted().collect(Collectors.joining(", "));
    }
}
