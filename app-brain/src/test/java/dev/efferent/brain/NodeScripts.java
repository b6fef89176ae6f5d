package dev.efferent.brain;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Node scripts of the tests, run with the machine's Node next to the npm packages they import, which are installed
 * from the npm registry into {@code target/npm/<name>} the first time (and kept for the build's other tests). No
 * Node or no registry fails the test, saying which.
 */
final class NodeScripts {
    private NodeScripts() {
    }

    /**
     * A directory with {@code script} (from the test resources) and {@code packages} installed beside it.
     *
     * @param name     the directory's name under {@code target/npm}
     * @param script   the resource, e.g. {@code mcp/mcp-client.mjs}
     * @param packages npm package specs, e.g. {@code @modelcontextprotocol/sdk@1.32.2}
     */
    static Path prepare(String name, String script, String... packages) throws IOException, InterruptedException {
        Path dir = Path.of("target", "npm", name).toAbsolutePath();
        Files.createDirectories(dir);
        if (!Files.isDirectory(dir.resolve("node_modules"))) {
            List<String> command = new ArrayList<>(List.of("npm", "install", "--no-audit", "--no-fund",
                    "--loglevel=error", "--prefix", dir.toString()));
            command.addAll(List.of(packages));
            String output = run(command, dir, 300);
            if (!Files.isDirectory(dir.resolve("node_modules"))) {
                throw new AssertionError("npm install " + String.join(" ", packages) + " installed nothing:\n" + output);
            }
        }
        try (InputStream in = NodeScripts.class.getResourceAsStream("/" + script)) {
            if (in == null) {
                throw new AssertionError("test resource " + script + " is missing");
            }
            Files.copy(in, dir.resolve(Path.of(script).getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
        }
        return dir;
    }

    /** Runs {@code node <script> <args…>} in {@code dir}; its standard output. */
    static String node(Path dir, String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("node", dir.resolve(script).toString()));
        command.addAll(List.of(args));
        return run(command, dir, 120);
    }

    private static String run(List<String> command, Path dir, int seconds) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command.getFirst() + " (Node.js and npm are needed for the MCP "
                    + "tests: apt-get install nodejs npm): " + e.getMessage(), e);
        }
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end within " + seconds + " s");
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited with " + p.exitValue() + ":\n" + output);
        }
        return output;
    }
}
