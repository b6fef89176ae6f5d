package dev.efferent.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Idle workers held by one brain: the real brain as its own process (app-brain/target/lib), and 1,000, 5,000
 * and 10,000 worker connections from this process, each heartbeating every 15 s. The brain's heap, RSS and
 * CPU while idle, and the REST round trip of a no-op task while they are all connected.
 */
final class ConnectionsBench {
    private static final String SECRET = "bench-secret";
    private static final String TOKEN = "bench-token";

    private ConnectionsBench() {
    }

    static void run(boolean smoke) throws Exception {
        int[] sizes = smoke ? new int[]{20} : new int[]{1000, 5000, 10_000};
        for (int size : sizes) {
            one(size, smoke);
        }
    }

    private static void one(int size, boolean smoke) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path lib = Path.of(System.getProperty("efferent.bench.brain.lib", "app-brain/target/lib"));
        Path log = Files.createTempFile("efferent-bench-brain", ".log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-p", lib.toString(), "-m", "efferent.brain/dev.efferent.brain.BrainMain", "--hands",
                "--port", String.valueOf(port)).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("EFFERENT_WORKER_SECRET", SECRET);
        pb.environment().put("EFFERENT_API_TOKEN", TOKEN);
        pb.environment().put("EFFERENT_LOG_LEVEL", "WARNING");
        Process brain = pb.start();
        HttpClient http = HttpClient.newHttpClient();
        ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor();
        try {
            awaitHealthy(http, port, brain, log);
            List<BenchWorker> workers = new CopyOnWriteArrayList<>();
            // Heartbeats start with the first connection: connecting thousands takes longer than 2 × the interval.
            heartbeats.scheduleAtFixedRate(() -> workers.forEach(w -> Thread.ofVirtual().start(() -> {
                try {
                    w.heartbeat();
                } catch (RuntimeException e) {
                    // A closed connection is counted below as a worker the brain lists offline.
                }
            })), 5, 5, TimeUnit.SECONDS);
            Semaphore inFlight = new Semaphore(200);
            long start = System.nanoTime();
            for (int i = 0; i < size; i++) {
                inFlight.acquire();
                BenchWorker w = BenchWorker.connect(port, "c" + i, 4, SECRET);
                workers.add(w);
                w.registered.whenComplete((a, e) -> inFlight.release());
            }
            for (BenchWorker w : workers) {
                w.registered.get(120, TimeUnit.SECONDS);
            }
            double connectSeconds = (System.nanoTime() - start) / 1e9;
            Thread.sleep(smoke ? 1000 : 20_000);
            jcmd(brain.pid(), "GC.run");
            Thread.sleep(1000);
            long cpuBefore = cpuTicks(brain.pid());
            long t0 = System.nanoTime();
            Thread.sleep(smoke ? 1000 : 10_000);
            double cpuPercent = 100.0 * (cpuTicks(brain.pid()) - cpuBefore) / 100.0 / ((System.nanoTime() - t0) / 1e9);
            long rssMb = rssKb(brain.pid()) / 1024;
            String heap = heapUsed(brain.pid());
            int calls = smoke ? 20 : 500;
            Stats rest = new Stats(calls);
            for (int i = 0; i < calls + 50; i++) {
                long t = System.nanoTime();
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                + "/api/v1/tasks?wait=10")).header("Content-Type", "application/json")
                        .header("Authorization", "Bearer " + TOKEN).POST(HttpRequest.BodyPublishers.ofString(
                                "{\"tool\":\"noop\",\"params\":{}}")).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("noop answered " + r.statusCode() + ": " + r.body());
                }
                if (i >= 50) {
                    rest.add(System.nanoTime() - t);
                }
            }
            String key = "connections." + size;
            BenchMain.figure(key + ".connect", String.format(Locale.ROOT, "%.1f s", connectSeconds));
            BenchMain.figure(key + ".heap-used", heap);
            BenchMain.figure(key + ".rss", rssMb + " MiB");
            BenchMain.figure(key + ".idle-cpu", String.format(Locale.ROOT, "%.1f %%", cpuPercent));
            BenchMain.figure(key + ".rest-noop.p50", Stats.micros(rest.percentile(50)));
            BenchMain.figure(key + ".rest-noop.p99", Stats.micros(rest.percentile(99)));
            workers.forEach(w -> {
                try {
                    w.close();
                } catch (RuntimeException e) {
                    // Already closed.
                }
            });
        } finally {
            heartbeats.shutdownNow();
            brain.destroy();
            brain.waitFor(20, TimeUnit.SECONDS);
            brain.destroyForcibly();
        }
    }

    private static void awaitHealthy(HttpClient http, int port, Process brain, Path log) throws Exception {
        for (int i = 0; i < 600; i++) {
            if (!brain.isAlive()) {
                throw new IllegalStateException("the brain exited:\n" + Files.readString(log));
            }
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/observe/health"))
                        .header("Authorization", "Bearer " + TOKEN).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // Not listening yet.
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the brain did not start:\n" + Files.readString(log));
    }

    private static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return -1;
    }

    /** utime + stime of the process, in clock ticks (100 per second on Linux). */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static String heapUsed(long pid) throws Exception {
        String out = jcmd(pid, "GC.heap_info");
        Matcher m = Pattern.compile("used (\\d+)K").matcher(out);
        return m.find() ? (Long.parseLong(m.group(1)) / 1024) + " MiB" : "unknown";
    }

    private static String jcmd(long pid, String command) throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

}
