package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's "Brain and hands on one machine" and docs/plugins.md's "Building and installing it", run as written,
 * with {@code bin/efferent} from this checkout, in a home of their own (its {@code ~/.m2} is the real one, so the
 * plugin builds against the SPI this build installed): terminal 1 starts the brain, terminal 2 pairs a worker with
 * a code from {@code bin/efferent pair}; then the plugin is built, copied into {@code ~/.efferent/plugins}, the worker
 * restarted, and the README's curl gets "Hello, Ada!". Needs port 18789, which the docs use, to be free.
 */
class HandsWalkthroughTest extends SystemFixture {
    private static final Path ROOT = Path.of(System.getProperty("efferent.test.root"));
    private static final int PORT = 18789;
    private final List<Process> shells = new ArrayList<>();
    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void theReadmesTwoTerminalsAndThePluginWalkthroughWorkAsWritten() throws Exception {
        try (ServerSocket free = new ServerSocket(PORT, 1, InetAddress.getLoopbackAddress())) {
            assertTrue(free.isBound());
        } catch (IOException e) {
            throw new AssertionError("port " + PORT + ", which the README's walkthrough uses, is taken: stop what "
                    + "listens there (a brain of yours?) and run the test again", e);
        }
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.createSymbolicLink(home.resolve(".m2"), Path.of(System.getProperty("user.home"), ".m2"));
        try {
            Map<String, String> terminals = terminals(block(ROOT.resolve("README.md"), "## Brain and hands on one machine"));
            assertEquals(List.of("terminal 1", "terminal 2"), List.copyOf(terminals.keySet()));
            shell("terminal-1", terminals.get("terminal 1"), home);
            await("the brain to answer", () -> status("/observe/health/live", home) == 200, 240);
            Process worker = shell("terminal-2", terminals.get("terminal 2"), home);
            await("laptop to come online", () -> workers(home).stream().anyMatch(w -> w.path("name").asText()
                    .equals("laptop") && w.path("online").asBoolean()), 120);

            // docs/plugins.md: build the example, drop it in, restart the worker (it needs no code now).
            stop(worker);
            shell("plugin", block(ROOT.resolve("docs/plugins.md"), "### Building and installing it"), home);
            await("the plugin's tool", () -> workers(home).stream().anyMatch(w -> w.path("online").asBoolean()
                    && w.path("tools").toString().contains("\"hello\"")), 300);
            Process ask = shell("curl", block(ROOT.resolve("docs/plugins.md"), "and from another terminal:"), home);
            assertTrue(ask.waitFor(60, TimeUnit.SECONDS), "curl did not finish");
            String answer = Files.readString(dir.resolve("curl.log"));
            assertTrue(answer.contains("\"output\":\"Hello, Ada!\""), answer);
        } finally {
            List.copyOf(shells).forEach(this::stop);
        }
    }

    /** The first shell block after {@code heading} in {@code file}. */
    private static String block(Path file, String heading) throws IOException {
        String text = Files.readString(file);
        int at = text.indexOf(heading);
        assertTrue(at >= 0, file + " has no '" + heading + "'");
        int start = text.indexOf("```bash\n", at) + "```bash\n".length();
        return text.substring(start, text.indexOf("```", start));
    }

    /** A block cut where its comments say "# terminal N…": each terminal's commands. */
    private static Map<String, String> terminals(String block) {
        Map<String, String> terminals = new LinkedHashMap<>();
        String current = null;
        for (String line : block.split("\n")) {
            Matcher m = Pattern.compile("^# (terminal \\d+)").matcher(line);
            if (m.find()) {
                current = m.group(1);
                terminals.putIfAbsent(current, "");
            }
            if (current != null) {
                terminals.put(current, terminals.get(current) + line + "\n");
            }
        }
        return terminals;
    }

    /** Runs {@code script} as a person's shell would, in the checkout, with {@code home} as the home. */
    private Process shell(String name, String script, Path home) throws IOException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-e", "-c", script).directory(ROOT.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("EFFERENT_"));
        pb.environment().put("HOME", home.toString());
        // Java takes its home from the password database, not $HOME: told here, so nothing lands in the real home.
        pb.environment().put("EFFERENT_JAVA_OPTS", "-Duser.home=" + home);
        Process p = pb.start();
        p.getOutputStream().close();
        shells.add(p);
        return p;
    }

    private void stop(Process p) {
        shells.remove(p);
        p.descendants().forEach(ProcessHandle::destroy);
        p.destroy();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            // The children (the JVMs bin/efferent started) too: the next step's worker takes the same name.
            for (ProcessHandle child : p.descendants().toList()) {
                child.onExit().get(30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new AssertionError("could not stop " + p, e);
        }
    }

    private int status(String path, Path home) {
        try {
            return get(path, home).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    private List<JsonNode> workers(Path home) {
        try {
            HttpResponse<String> r = get("/api/v1/workers", home);
            List<JsonNode> all = new ArrayList<>();
            if (r.statusCode() == 200) {
                JSON.readTree(r.body()).path("workers").forEach(all::add);
            }
            return all;
        } catch (IOException e) {
            return List.of();
        }
    }

    private HttpResponse<String> get(String path, Path home) throws IOException {
        Path token = home.resolve(".efferent/brain/api-token");
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT + path))
                .timeout(Duration.ofSeconds(10));
        if (Files.exists(token)) {
            b.header("Authorization", "Bearer " + Files.readString(token, StandardCharsets.UTF_8).strip());
        }
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private void await(String what, BooleanSupplier done, int seconds) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (System.nanoTime() < end) {
            if (done.getAsBoolean()) {
                return;
            }
            for (Process p : shells) {
                if (!p.isAlive() && p.exitValue() != 0) {
                    throw new AssertionError("a step failed (exit " + p.exitValue() + ") while waiting for " + what
                            + ":\n" + logs());
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("waited " + seconds + " s for " + what + ":\n" + logs());
    }

    private String logs() throws IOException {
        StringBuilder all = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path log : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                all.append("--- ").append(log.getFileName()).append(" ---\n").append(Files.readString(log));
            }
        }
        return all.toString();
    }
}
