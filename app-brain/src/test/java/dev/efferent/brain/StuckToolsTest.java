package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolkitProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tools that never return by themselves cost the brain a slot each, never its responsiveness: while thirty such
 * calls run in the brain (issue: two froze it on two cores, 0 of 24 health checks answered in 4 minutes), its
 * health check, its API and other tasks keep answering.
 *
 * <p>The stuck calls: ten of a test plugin's {@code spin}, CPU-bound and deaf to interrupts, which the test lets go
 * of at the end; ten {@code search_files} with a backtracking pattern (seconds of CPU each, unless search_files
 * bounds its matcher); ten {@code read_file} of FIFOs nobody writes (blocked in {@code open()}, unless read_file
 * refuses FIFOs). The plugin keeps the test meaningful whatever tools-fs does; the other twenty are the real
 * cases. The pattern is {@code (.*a){7}b}, not {@code {20}}: an unbounded matcher must end by itself in seconds,
 * or it would spin on in this JVM after the test.
 */
class StuckToolsTest extends BrainFixture {
    private static final String LET_GO = "efferent.test.stuck.let-go";
    private static final List<String> STUCK_TOOLS = List.of("spin", "search_files", "read_file");
    private static final Duration STUCK_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration MEASURED = Duration.ofSeconds(5);
    private static final long BOUND_MS = 2_000;
    private static final long GOAL_MS = 100;

    @TempDir
    static Path plugins;
    private final List<Path> fifos = new ArrayList<>();
    private final List<String> fsCalls = new ArrayList<>();

    @BeforeAll
    static void buildStuckPlugin() throws Exception {
        Path src = Files.createDirectories(plugins.resolve("src/test/stuck"));
        Files.writeString(plugins.resolve("src/module-info.java"), "module efferent.test.stuck {\n"
                + "    requires efferent.tools.spi;\n"
                + "    provides dev.efferent.tools.spi.ToolkitProvider with test.stuck.StuckProvider;\n"
                + "}");
        Files.writeString(src.resolve("StuckProvider.java"), """
                package test.stuck;
                import dev.efferent.plugin.Settings;
                import dev.efferent.tools.spi.*;
                import java.util.List;
                public final class StuckProvider implements ToolkitProvider {
                    public String name() { return "stuck"; }
                    public Toolkit create(Settings settings) {
                        Tool spin = Tool.of(ToolSpec.local("spin", "Spins a CPU, deaf to interrupts, until let go",
                                "{\\"type\\": \\"object\\"}", ToolHints.MUTATING), (p, c) -> {
                            long n = 0;
                            while (System.getProperty("%s") == null) {
                                for (int i = 0; i < 100_000; i++) {
                                    n = n * 31 + 7;
                                }
                            }
                            return ToolResult.text("spun " + (n & 1));
                        });
                        return new Toolkit() {
                            public String name() { return "stuck"; }
                            public List<Tool> tools() { return List.of(spin); }
                        };
                    }
                }""".formatted(LET_GO));
        String spi = Path.of(ToolkitProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                + File.pathSeparator
                + Path.of(Settings.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path bin = Path.of(System.getProperty("java.home"), "bin");
        Path classes = plugins.resolve("classes");
        run(bin.resolve("javac").toString(), "--release", "21", "--module-path", spi,
                "-d", classes.toString(), plugins.resolve("src/module-info.java").toString(),
                src.resolve("StuckProvider.java").toString());
        Files.createDirectories(plugins.resolve("dir"));
        run(bin.resolve("jar").toString(), "--create", "--file", plugins.resolve("dir/stuck.jar").toString(),
                "-C", classes.toString(), ".");
    }

    @AfterEach
    void letStuckToolsGo() throws Exception {
        System.setProperty(LET_GO, "true");
        try {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            while (!stuckThreads().isEmpty() && System.nanoTime() < end) {
                releaseFifoReaders();
                Thread.sleep(200);
            }
            assertEquals(List.of(), stuckThreads(), "tool threads left behind");
        } finally {
            System.clearProperty(LET_GO);
        }
    }

    @Test
    void singleMachineBrainAnswersWhileThirtyCallsAreStuck() throws Exception {
        startBrain(false, settings(false));
        List<String> spins = startStuckCalls();
        Latencies l = measure("brain");
        report("single machine", l);
        assertReportedEndedWhileTheirThreadsRunOn(spins);
    }

    @Test
    void handsModeBrainKeepsAWorkersTasksCompletingWhileItsOwnCallsAreStuck() throws Exception {
        startBrain(true, settings(true));
        startWorker("laptop", dir.resolve("laptop-root"), Map.of());
        awaitWorker("laptop", true, 30);
        List<String> spins = startStuckCalls();
        Latencies l = measure("laptop");
        report("hands mode, stat on a worker process", l);
        assertReportedEndedWhileTheirThreadsRunOn(spins);
    }

    private Map<String, String> settings(boolean hands) {
        Map<String, String> values = new HashMap<>(Map.of(
                "plugins.dirs", plugins.resolve("dir").toString(),
                "hands.local-concurrency", "40"));
        if (hands) {
            // With hands on, the brain runs only CLOUD tools: these three are made so, to get stuck in the brain.
            STUCK_TOOLS.forEach(t -> values.put("routing.placement." + t, "CLOUD"));
        }
        return values;
    }

    /** Starts the thirty stuck calls in the brain; returns the ids of the spinning ones once all ten spin. */
    private List<String> startStuckCalls() throws Exception {
        Files.writeString(brainRoot().resolve("aaa.txt"), "a".repeat(40) + "\n");
        List<String> spins = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Path fifo = brainRoot().resolve("pipe-" + i);
            run("mkfifo", fifo.toString());
            fifos.add(fifo);
            spins.add(submitStuck("spin", "{}"));
            fsCalls.add(submitStuck("search_files", "{\"pattern\":\"(.*a){7}b\",\"path\":\"aaa.txt\"}"));
            fsCalls.add(submitStuck("read_file", "{\"path\":\"pipe-" + i + "\"}"));
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (threads("spin").size() < 10 && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertEquals(10, threads("spin").size(), "spinning tool threads: " + threads("spin"));
        System.out.printf("Stuck tool threads at the start: %d spin, %d search_files, %d read_file%n",
                threads("spin").size(), threads("search_files").size(), threads("read_file").size());
        return spins;
    }

    private String submitStuck(String tool, String params) {
        return submit("{\"tool\":\"" + tool + "\",\"params\":" + params + ",\"worker\":\"brain\",\"timeoutMs\":"
                + STUCK_TIMEOUT.toMillis() + "}").path("id").asText();
    }

    /** Health, the worker list and a stat task, round after round for {@link #MEASURED}. */
    private Latencies measure(String statRunsOn) throws Exception {
        Latencies l = new Latencies();
        long end = System.nanoTime() + MEASURED.toNanos();
        while (System.nanoTime() < end) {
            l.health().add(timed("GET", "/observe/health/live", null, 200).ms());
            l.workers().add(timed("GET", "/api/v1/workers", null, 200).ms());
            Timed stat = timed("POST", "/api/v1/tasks?wait=10", "{\"tool\":\"stat\",\"params\":{\"path\":\".\"}}", 200);
            l.stat().add(stat.ms());
            JsonNode done = JSON.readTree(stat.body());
            assertEquals("completed", done.path("status").asText(), done.toString());
            assertEquals(statRunsOn, done.path("runningOn").asText(), done.toString());
            Thread.sleep(100);
        }
        return l;
    }

    private void report(String mode, Latencies l) {
        System.out.printf("StuckToolsTest (%s, %d cores, %d rounds): health %s, workers %s, stat %s (goal %d ms, "
                        + "bound %d ms); stuck tool threads now %d%n", mode, Runtime.getRuntime().availableProcessors(),
                l.health().size(), Latencies.text(l.health()), Latencies.text(l.workers()), Latencies.text(l.stat()), GOAL_MS,
                BOUND_MS, stuckThreads().size());
        assertTrue(l.health().size() >= 3, "only " + l.health().size() + " rounds in " + MEASURED);
        assertTrue(Latencies.max(l.health()) < BOUND_MS, "health check took " + l.health() + " ms");
        assertTrue(Latencies.max(l.workers()) < BOUND_MS, "worker list took " + l.workers() + " ms");
        assertTrue(Latencies.max(l.stat()) < BOUND_MS, "stat task took " + l.stat() + " ms");
    }

    /** The spinning calls timed out and are reported so, though their threads still run (and hold their slots). */
    private void assertReportedEndedWhileTheirThreadsRunOn(List<String> spins) throws Exception {
        for (String id : spins) {
            JsonNode t = awaitTask(id, 10, n -> n.path("status").asText().equals("failed"));
            assertEquals("timed out after 2s", t.path("error").asText(), t.toString());
        }
        assertEquals(10, threads("spin").size(), "the spinning tools are deaf to their timeout");
        // What became of the real cases depends on tools-fs: stuck and timed out, or refused or bounded at once.
        Map<String, Long> fs = new TreeMap<>();
        for (String id : fsCalls) {
            JsonNode t = task(id);
            String error = t.path("error").asText().replaceAll("pipe-\\d", "pipe-N");
            fs.merge(t.path("tool").asText() + " " + t.path("status").asText()
                    + (error.isEmpty() ? "" : ": " + error.substring(0, Math.min(50, error.length()))), 1L, Long::sum);
        }
        System.out.println("The file tools' calls: " + fs);
    }

    private Timed timed(String method, String path, String body, int expected) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brain.port() + path))
                .timeout(Duration.ofSeconds(15))
                .header("Authorization", "Bearer " + TOKEN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        long t0 = System.nanoTime();
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(expected, r.statusCode(), method + " " + path + ": " + r.body());
        return new Timed(ms, r.body());
    }

    /** Opened for reading and writing, a FIFO never blocks (Linux) and lets readers blocked in open() go on. */
    private void releaseFifoReaders() {
        for (Path fifo : fifos) {
            try (RandomAccessFile both = new RandomAccessFile(fifo.toFile(), "rw")) {
                both.length();
            } catch (IOException e) {
                // Gone with the temporary directory, or not a FIFO any more: nobody waits on it.
            }
        }
    }

    private static List<String> stuckThreads() {
        return STUCK_TOOLS.stream().flatMap(t -> threads(t).stream()).toList();
    }

    /** Live threads running {@code tool} in this JVM: the brain runs each call on {@code efferent-tool-<tool>-<task>}. */
    private static List<String> threads(String tool) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("efferent-tool-" + tool + "-")).sorted().toList();
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed:\n" + out);
        }
    }

    private record Timed(long ms, String body) {
    }

    /** Each request's time in ms, per kind. */
    private record Latencies(List<Long> health, List<Long> workers, List<Long> stat) {
        Latencies() {
            this(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        }

        static long max(List<Long> ms) {
            return ms.stream().mapToLong(Long::longValue).max().orElse(0);
        }

        static String text(List<Long> ms) {
            List<Long> sorted = ms.stream().sorted().toList();
            return "median " + sorted.get(sorted.size() / 2) + " ms, max " + max(ms) + " ms";
        }
    }
}
