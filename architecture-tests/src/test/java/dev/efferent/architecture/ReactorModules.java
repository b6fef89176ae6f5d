package dev.efferent.architecture;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The descriptors of this reactor's modules, read from the built jars (or class folders) on the test's class path,
 * and the names their sources declare, so that a module missing from the build is noticed.
 */
final class ReactorModules {
    private static final Pattern MODULE_NAME = Pattern.compile("(?m)^\\s*(?:open\\s+)?module\\s+([\\w.]+)\\s*\\{");

    private ReactorModules() {
    }

    /** The built descriptors of every {@code efferent.*} module on the class path, by name. */
    static Map<String, ModuleDescriptor> built() {
        Map<String, ModuleDescriptor> found = new TreeMap<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry);
            boolean ours = path.getFileName().toString().startsWith("efferent-")
                    || Files.isRegularFile(path.resolve("module-info.class"));
            if (!ours) {
                continue;
            }
            for (ModuleReference reference : ModuleFinder.of(path).findAll()) {
                ModuleDescriptor descriptor = reference.descriptor();
                if (descriptor.name().startsWith("efferent.") && !descriptor.isAutomatic()) {
                    found.put(descriptor.name(), descriptor);
                }
            }
        }
        return found;
    }

    /** The module names declared by {@code <root>/<dir>/src/main/java/module-info.java}, by directory. */
    static Map<String, String> declared(Path root) {
        Map<String, String> names = new TreeMap<>();
        try (Stream<Path> dirs = Files.list(root)) {
            List<Path> sorted = new ArrayList<>(dirs.toList());
            for (Path dir : sorted) {
                Path info = dir.resolve("src/main/java/module-info.java");
                if (!Files.isRegularFile(info)) {
                    continue;
                }
                Matcher m = MODULE_NAME.matcher(Files.readString(info));
                if (!m.find()) {
                    throw new IllegalStateException(info + " declares no module");
                }
                names.put(dir.getFileName().toString(), m.group(1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not list the modules under " + root, e);
        }
        return names;
    }
}
