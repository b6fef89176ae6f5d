package dev.efferent.core.plugin;

import java.lang.module.ModuleReference;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.CodeSource;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a plugin came from, for logs, diagnostics and the tool list.
 *
 * @param name     the name the plugin gives itself, e.g. {@code "memory"}
 * @param module   its module's name, or {@code "unnamed"} on the class path
 * @param version  its module's version, or {@code "unknown"}
 * @param location the jar or directory it was loaded from, or {@code "unknown"}
 */
public record PluginInfo(String name, String module, String version, String location) {
    public PluginInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(module, "module");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(location, "location");
    }

    /** Describes the plugin implemented by {@code type}. */
    public static PluginInfo of(String name, Class<?> type) {
        Module module = type.getModule();
        String moduleName = module.isNamed() ? module.getName() : "unnamed";
        String version = module.isNamed()
                ? module.getDescriptor().rawVersion().orElse("unknown")
                : Optional.ofNullable(type.getPackage().getImplementationVersion()).orElse("unknown");
        return new PluginInfo(name, moduleName, version, location(type).orElse("unknown"));
    }

    /** The module as diagnostics print it: {@code efferent.tools.fs 0.1.0 (/path/to.jar)}. */
    public String describeModule() {
        return module + ("unknown".equals(version) ? "" : " " + version)
                + ("unknown".equals(location) ? "" : " (" + location + ")");
    }

    private static Optional<String> location(Class<?> type) {
        Module module = type.getModule();
        if (module.isNamed() && module.getLayer() != null) {
            Optional<URI> uri = module.getLayer().configuration().findModule(module.getName())
                    .map(m -> m.reference()).flatMap(ModuleReference::location);
            if (uri.isPresent()) {
                return uri.map(PluginInfo::toText);
            }
        }
        CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(toText(source.getLocation().toURI()));
        } catch (URISyntaxException e) {
            return Optional.of(source.getLocation().toString());
        }
    }

    private static String toText(URI uri) {
        return "file".equals(uri.getScheme()) ? uri.getPath() : uri.toString();
    }
}
