package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The runtime per role: bin/build-runtimes makes both from the packaged apps; the worker's holds no router, queue,
 * database or server module; the worker launched from its runtime registers with a brain launched from its own.
 * The sizes, start-up times and idle memory it sees are written to target/runtime-figures.txt.
 */
class RuntimesTest extends SystemFixture {
    private static final Set<String> SERVER_SIDE = Set.of("efferent.router", "efferent.brain", "efferent.queue.spi",
            "efferent.queue.memory", "efferent.queue.postgres", "io.helidon.webserver", "io.helidon.webserver.websocket",
            "io.helidon.dbclient", "io.helidon.dbclient.jdbc", "io.helidon.dbclient.hikari", "org.postgresql.jdbc",
            "com.zaxxer.hikari");

    @Test
    void bothRuntimesBuildAndTheWorkerRegistersWithTheBrain() throws Exception {
        Path root = Path.of(System.getProperty("efferent.test.root")).toAbsolutePath().normalize();
        Path out = dir.resolve("runtimes");
        ProcessBuilder build = new ProcessBuilder(root.resolve("bin/build-runtimes").toString(), out.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("build.log").toFile());
        build.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = build.start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "jlink took too long");
        assertEquals(0, p.exitValue(), Files.readString(dir.resolve("build.log")));

        Set<String> workerModules = modules(out.resolve("worker/lib"));
        assertTrue(workerModules.contains("efferent.worker") && workerModules.contains("efferent.tools.fs"), workerModules.toString());
        Set<String> leaked = workerModules.stream().filter(SERVER_SIDE::contains).collect(Collectors.toSet());
        assertEquals(Set.of(), leaked, "the worker runtime carries no server-side module");
        Set<String> brainModules = modules(out.resolve("brain/lib"));
        assertTrue(brainModules.containsAll(Set.of("efferent.brain", "efferent.queue.memory", "efferent.queue.postgres")),
                brainModules.toString());

        // Each launcher makes its start-up cache on its first start (JDK 25+); the figures are of the starts after.
        Path cache = dir.resolve("start-up-cache");
        int port = freePort();
        Launched first = startBrain(out, port, cache, "rt-brain-first.log");
        first.stop();
        long brainStart = System.nanoTime();
        Launched brain = startBrain(out, port, cache, "rt-brain.log");
        long brainReadyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - brainStart);
        assertTrue(!brain.output().contains("no start-up cache"), brain.output());

        // A YAML file is read without java.desktop, which SnakeYAML needs only to map YAML onto beans.
        Path yaml = Files.writeString(dir.resolve("worker.yaml"), "worker:\n  max-concurrency: 3\n");
        Launched firstWorker = startWorker(out, port, cache, yaml, "rt-worker-first.log");
        readyMs(firstWorker, "Registered with brain", System.nanoTime());
        assertTrue(Files.list(cache).anyMatch(f -> f.getFileName().toString().matches("worker-\\d+\\.aot")),
                "the first start made the worker's start-up cache:\n" + firstWorker.output());
        assertTrue(!brain.output().contains("warm-up"), "the warm-up talks to a stand-in, not to the brain:\n"
                + brain.output());
        firstWorker.stop();
        long workerStart = System.nanoTime();
        Launched worker = startWorker(out, port, cache, yaml, "rt-worker.log");
        long workerRegisteredMs = readyMs(worker, "Registered with brain", workerStart);
        assertTrue(worker.output().contains("3 slots") && !worker.output().contains("no start-up cache"), worker.output());
        awaitWorkerOnline(brain, "slim", 60);

        JsonNode done = call(brain, "POST", "/api/v1/tasks?wait=30", "{\"tool\":\"run_shell\",\"params\":{\"command\":"
                + "\"echo from the slim worker\"},\"worker\":\"slim\"}", 200);
        assertTrue(done.path("output").asText().contains("from the slim worker"), done.toString());

        // Idle is what a laptop carries all day: the JVM hands the memory its compilers used for the call back
        // about 5 s later (its arena cleaner, then the periodic native trim), so the figure is read at 15 s, with
        // the highest reading before it beside it.
        long workerPeakKb = 0;
        for (int i = 0; i < 30; i++) {
            Thread.sleep(500);
            workerPeakKb = Math.max(workerPeakKb, rssKb(worker.process().pid()));
        }
        long workerRssKb = rssKb(worker.process().pid());
        long brainRssKb = rssKb(brain.process().pid());
        String figures = String.join("\n",
                "brain image: " + sizeMb(out.resolve("brain")) + " MiB (runtime " + sizeMb(out.resolve("brain/runtime"))
                        + ", lib " + sizeMb(out.resolve("brain/lib")) + ")",
                "worker image: " + sizeMb(out.resolve("worker")) + " MiB (runtime " + sizeMb(out.resolve("worker/runtime"))
                        + ", lib " + sizeMb(out.resolve("worker/lib")) + ")",
                "start-up caches (outside the images): " + Files.list(cache).filter(f -> f.toString().endsWith(".aot"))
                        .map(f -> f.getFileName().toString().replaceAll("-\\d+", "") + " " + f.toFile().length() / (1024 * 1024)
                                + " MiB").sorted().collect(Collectors.joining(", ")),
                "brain start to ready: " + brainReadyMs + " ms",
                "worker start to registered: " + workerRegisteredMs + " ms",
                "idle worker RSS: " + workerRssKb / 1024 + " MiB (15 s after a shell command; at most "
                        + workerPeakKb / 1024 + " MiB in between)",
                "idle brain RSS: " + brainRssKb / 1024 + " MiB", "");
        Files.writeString(Path.of("target", "runtime-figures.txt"), figures);
        System.out.println(figures);
    }

    private Launched startBrain(Path out, int port, Path cache, String log) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(out.resolve("brain/bin/brain").toString(), "--hands", "--port",
                String.valueOf(port)).redirectErrorStream(true).redirectOutput(dir.resolve(log).toFile());
        pb.environment().put("EFFERENT_WORKER_SECRET", SECRET);
        pb.environment().put("EFFERENT_API_TOKEN", TOKEN);
        pb.environment().put("EFFERENT_CACHE_DIR", cache.toString());
        Launched brain = new Launched("runtime-brain", pb.start(), dir.resolve(log), port);
        launched.add(brain);
        readyMs(brain, "Brain listening", System.nanoTime());
        return brain;
    }

    private Launched startWorker(Path out, int port, Path cache, Path yaml, String log) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(out.resolve("worker/bin/worker").toString(), "--brain-url",
                "ws://127.0.0.1:" + port, "--name", "slim", "--state-dir", dir.resolve("slim-state").toString(),
                "--root", dir.toString(), "--config", yaml.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve(log).toFile());
        pb.environment().put("EFFERENT_WORKER_SECRET", SECRET);
        pb.environment().put("EFFERENT_CACHE_DIR", cache.toString());
        Launched worker = new Launched("runtime-worker", pb.start(), dir.resolve(log), 0);
        launched.add(worker);
        return worker;
    }

    /** Milliseconds from {@code startNanos} until the process's output holds {@code line}, read as it is written. */
    private static long readyMs(Launched launched, String line, long startNanos) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!Files.exists(launched.log()) || !Files.readString(launched.log()).contains(line)) {
            assertTrue(launched.process().isAlive(), launched.output());
            assertTrue(System.nanoTime() < deadline, launched.name() + " never said '" + line + "':\n" + launched.output());
            Thread.sleep(2);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static Set<String> modules(Path lib) {
        return ModuleFinder.of(lib).findAll().stream().map(ModuleReference::descriptor).map(d -> d.name())
                .collect(Collectors.toSet());
    }

    private static long rssKb(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return -1;
    }

    private static long sizeMb(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum() / (1024 * 1024);
        }
    }
}
