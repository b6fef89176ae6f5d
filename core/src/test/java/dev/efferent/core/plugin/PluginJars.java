package dev.efferent.core.plugin;

import dev.efferent.tools.spi.ToolkitProvider;

import java.io.File;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/** Builds small plugin jars at test time, as a third party would, against the tools SPI. */
final class PluginJars {
    private PluginJars() {
    }

    /** Where the tools SPI module is, for compiling against it. */
    static Path spi() {
        return location("efferent.tools.spi");
    }

    private static Path location(String module) {
        return Path.of(ToolkitProvider.class.getModule().getLayer().configuration()
                .findModule(module).orElseThrow().reference().location().orElseThrow());
    }

    /**
     * Compiles {@code sources} (path → text) with {@code modulePath} and jars the classes into {@code jar}.
     *
     * @return the jar
     */
    static Path build(Path work, Path jar, Map<String, String> sources, List<Path> modulePath) throws IOException {
        Path src = Files.createTempDirectory(work, "src");
        Path classes = Files.createTempDirectory(work, "classes");
        List<String> files = new ArrayList<>();
        for (var e : sources.entrySet()) {
            Path file = src.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue());
            files.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("--release", "21", "-d", classes.toString()));
        if (!modulePath.isEmpty()) {
            // The tools SPI brings the settings module (efferent.plugin.api) with it.
            List<Path> path = new ArrayList<>(modulePath);
            path.add(location("efferent.plugin.api"));
            args.add("--module-path");
            args.add(String.join(File.pathSeparator, path.stream().map(Path::toString).toList()));
        }
        args.addAll(files);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        if (javac.run(null, null, errors, args.toArray(String[]::new)) != 0) {
            throw new AssertionError("compiling the test plugin failed:\n" + errors);
        }
        return jar(classes, jar);
    }

    static Path jar(Path classes, Path jar) throws IOException {
        Files.createDirectories(jar.getParent());
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
             Stream<Path> walk = Files.walk(classes)) {
            for (Path p : walk.filter(Files::isRegularFile).sorted().toList()) {
                j.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                j.write(Files.readAllBytes(p));
                j.closeEntry();
            }
        }
        return jar;
    }

    /** Source of a toolkit plugin named {@code name} with one tool {@code name + "_tool"}. */
    static Map<String, String> toolkit(String module, String name, String constructorBody) {
        String pkg = "com.example." + name;
        return Map.of(
                "module-info.java", "module " + module + " { requires efferent.tools.spi; provides "
                        + "dev.efferent.tools.spi.ToolkitProvider with " + pkg + ".Provider; }",
                pkg.replace('.', '/') + "/Provider.java", """
                        package %1$s;
                        import dev.efferent.plugin.Settings;
                        import dev.efferent.tools.spi.*;
                        import java.util.List;
                        public final class Provider implements ToolkitProvider {
                            public Provider() { %3$s }
                            public String name() { return "%2$s"; }
                            public Toolkit create(Settings settings) {
                                ToolSpec spec = ToolSpec.local("%2$s_tool", "says hello", "{\\"type\\": \\"object\\"}",
                                        ToolHints.READ_ONLY);
                                Tool tool = new Tool() {
                                    public ToolSpec spec() { return spec; }
                                    public ToolResult call(ToolParams p, ToolContext c) { return ToolResult.text("hello"); }
                                };
                                return new Toolkit() {
                                    public String name() { return "%2$s"; }
                                    public List<Tool> tools() { return List.of(tool); }
                                };
                            }
                        }
                        """.formatted(pkg, name, constructorBody));
    }
}
