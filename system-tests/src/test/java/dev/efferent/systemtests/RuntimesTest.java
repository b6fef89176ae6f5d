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

        int port = freePort();
        long brainStart = System.nanoTime();
        ProcessBuilder brainPb = new ProcessBuilder(out.resolve("brain/bin/brain").toString(), "--hands", "--port",
                String.valueOf(port)).redirectErrorStream(true).redirectOutput(dir.resolve("rt-brain.log").toFile());
        brainPb.environment().put("EFFERENT_WORKER_SECRET", SECRET);
        brainPb.environment().put("EFFERENT_API_TOKEN", TOKEN);
        Process brainProcess = brainPb.start();
        Launched brain = new Launched("runtime-brain", brainProcess, dir.resolve("rt-brain.log"), port);
        launched.add(brain);
        while (status(brain, "GET", "/observe/health", null) != 200) {
            assertTrue(brainProcess.isAlive(), brain.output());
            assertTrue(System.nanoTime() - brainStart < Duration.ofSeconds(60).toNanos(), brain.output());
            Thread.sleep(20);
        }
        long brainReadyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - brainStart);

        long workerStart = System.nanoTime();
        ProcessBuilder workerPb = new ProcessBuilder(out.resolve("worker/bin/worker").toString(), "--brain-url",
                "ws://127.0.0.1:" + port, "--name", "slim", "--state-dir", dir.resolve("slim-state").toString(),
                "--root", dir.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("rt-worker.log").toFile());
        workerPb.environment().put("EFFERENT_WORKER_SECRET", SECRET);
        Process workerProcess = workerPb.start();
        launched.add(new Launched("runtime-worker", workerProcess, dir.resolve("rt-worker.log"), 0));
        awaitWorkerOnline(brain, "slim", 60);
        long workerRegisteredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - workerStart);

        JsonNode done = call(brain, "POST", "/api/v1/tasks?wait=30", "{\"tool\":\"run_shell\",\"params\":{\"command\":"
                + "\"echo from the slim worker\"},\"worker\":\"slim\"}", 200);
        assertTrue(done.path("output").asText().contains("from the slim worker"), done.toString());

        Thread.sleep(5000);
        long workerRssKb = rssKb(workerProcess.pid());
        long brainRssKb = rssKb(brainProcess.pid());
        String figures = String.join("\n",
                "brain image: " + sizeMb(out.resolve("brain")) + " MiB (runtime " + sizeMb(out.resolve("brain/runtime"))
                        + ", lib " + sizeMb(out.resolve("brain/lib")) + ")",
                "worker image: " + sizeMb(out.resolve("worker")) + " MiB (runtime " + sizeMb(out.resolve("worker/runtime"))
                        + ", lib " + sizeMb(out.resolve("worker/lib")) + ")",
                "brain start to ready: " + brainReadyMs + " ms",
                "worker start to registered: " + workerRegisteredMs + " ms",
                "idle worker RSS: " + workerRssKb / 1024 + " MiB",
                "idle brain RSS: " + brainRssKb / 1024 + " MiB", "");
        Files.writeString(Path.of("target", "runtime-figures.txt"), figures);
        System.out.println(figures);
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
