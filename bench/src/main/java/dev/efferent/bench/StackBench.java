package dev.efferent.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

/**
 * The path a VPS user runs, whole: callers POST a near no-op task ({@code stat} of one directory) to the REST API
 * and wait for its result; the brain (its own process, PostgreSQL queue or memory) queues it, dispatches it over a
 * WebSocket to one of two worker processes (16 slots each), stores the result and answers. Tasks per second,
 * p50 and p99 with 1, 8 and 64 callers, each caller on a keep-alive connection of its own; beside pgbench's B and
 * the WebSocket echo floor of the same run.
 */
final class StackBench {
    private static final String SECRET = "bench-secret-bench-secret";
    private static final String TOKEN = "bench-token-bench-token";
    /** The rows: concurrent callers each ({@code -Defferent.bench.stack.callers=1} for one row, to profile it). */
    private static final int[] CALLERS = Arrays.stream(System.getProperty("efferent.bench.stack.callers",
            "1,8,64").split(",")).mapToInt(c -> Integer.parseInt(c.strip())).toArray();
    private static final int WORKERS = 2;

    private StackBench() {
    }

    static void run(boolean smoke) throws Exception {
        if (!smoke) {
            BenchMain.figure("stack.pgbench.B", String.format(Locale.ROOT, "%.0f tps", QueueBench.pgbench()));
            BenchMain.figure("stack.echo.p50", Stats.micros(BenchMain.echoFloor(5_000)));
        }
        for (String queue : System.getProperty("efferent.bench.stack.queues", "postgres,memory").split(",")) {
            one(queue, smoke);
        }
    }

    private static void one(String queue, boolean smoke) throws Exception {
        Path dir = Files.createTempDirectory("efferent-bench-stack");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // As the runtimes' launchers start them (bin/build-runtimes), unless told otherwise: both with C1 alone, the
        // workers with the serial collector and a heap that starts small (the brain keeps the JVM's default, G1).
        List<String> opts = jvmOptions("efferent.bench.jvm-opts", "-XX:TieredStopAtLevel=1");
        List<String> workerOpts = jvmOptions("efferent.bench.worker.jvm-opts", "-XX:+UseSerialGC -Xms4m"
                + (Runtime.version().feature() >= 22 ? " -XX:TrimNativeHeapInterval=2000" : ""));
        Path brainLib = Path.of(System.getProperty("efferent.bench.brain.lib", "app-brain/target/lib"));
        Path workerLib = Path.of(System.getProperty("efferent.bench.worker.lib", "app-worker/target/lib"));
        List<String> brainCmd = new ArrayList<>(List.of(java));
        brainCmd.addAll(opts);
        brainCmd.addAll(List.of("-Xmx1g", "-Duser.home=" + dir, "-p", brainLib.toString(), "-m",
                "efferent.brain/dev.efferent.brain.BrainMain", "--hands", "--port", String.valueOf(port)));
        ProcessBuilder pb = new ProcessBuilder(brainCmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("brain.log").toFile());
        Map<String, String> env = pb.environment();
        env.put("EFFERENT_WORKER_SECRET", SECRET);
        env.put("EFFERENT_API_TOKEN", TOKEN);
        env.put("EFFERENT_LOG_LEVEL", "WARNING");
        env.put("EFFERENT_QUEUE_PROVIDER", queue);
        env.put("EFFERENT_DB_URL", QueueBench.URL);
        env.put("EFFERENT_DB_USER", QueueBench.USER);
        String schema = "efferent_stack_" + System.nanoTime() % 100000;
        env.put("EFFERENT_QUEUE_POSTGRES_SCHEMA", schema);
        List<Process> processes = new ArrayList<>();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            Process brain = pb.start();
            processes.add(brain);
            awaitHealthy(http, port, brain, dir.resolve("brain.log"));
            for (int w = 0; w < WORKERS; w++) {
                List<String> cmd = new ArrayList<>(List.of(java));
                cmd.addAll(opts);
                cmd.addAll(workerOpts);
                cmd.addAll(List.of("-Xmx256m", "-Duser.home=" + dir, "-p", workerLib.toString(), "-m",
                        "efferent.worker/dev.efferent.worker.WorkerMain", "--brain-url", "ws://127.0.0.1:" + port,
                        "--name", "w" + w, "--state-dir", dir.resolve("w" + w).toString(), "--root", dir.toString(),
                        "--max-concurrency", "16"));
                ProcessBuilder wpb = new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("w" + w + ".log").toFile());
                wpb.environment().put("EFFERENT_WORKER_SECRET", SECRET);
                wpb.environment().put("EFFERENT_LOG_LEVEL", "WARNING");
                processes.add(wpb.start());
            }
            awaitWorkers(http, port, WORKERS);
            String body = "{\"tool\":\"stat\",\"params\":{\"path\":\"" + dir + "\"}}";
            // Until the JIT compilers have done most of their work in every process: a brain runs for days, and its
            // steady state is what the rows measure (2000 calls, as before, left a fifth of the CPU to compilers).
            drive(port, body, 16, Duration.ofSeconds(smoke ? 1 : 8));
            if (queue.equals("postgres")) {
                // What autovacuum does within its first minute on a table this busy: statistics for the table as it
                // is now. Without them a plan cached while the table was empty goes on reading all of it.
                QueueBench.sql("ANALYZE " + schema + ".tasks");
            }
            for (int callers : CALLERS) {
                Duration length = Duration.ofSeconds(smoke ? 1 : 10);
                Result r = drive(port, body, callers, length);
                String key = "stack." + queue + "." + callers;
                BenchMain.figure(key + ".rate", String.format(Locale.ROOT, "%.0f tasks/s", r.rate()));
                BenchMain.figure(key + ".p50", Stats.micros(r.stats().percentile(50)));
                BenchMain.figure(key + ".p99", Stats.micros(r.stats().percentile(99)));
            }
        } finally {
            for (Process p : processes.reversed()) {
                p.destroy();
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
            if (queue.equals("postgres")) {
                // Writes of a task's row after its insert, per task, the warm-up's included: its claim when not made
                // on adding it, its start when not left out for its result (decision 34), its completion. Counted by
                // PostgreSQL as the brain's connections closed.
                try {
                    Thread.sleep(500);
                    BenchMain.figure("stack.postgres.updates-per-task", QueueBench.value("SELECT round(n_tup_upd"
                            + "::numeric / nullif(n_tup_ins, 0), 2) FROM pg_stat_user_tables WHERE schemaname = '"
                            + schema + "' AND relname = 'tasks'"));
                } catch (Exception e) {
                    System.err.println("Could not count the updates per task: " + e.getMessage());
                }
                // Each run's tasks in a schema of its own, gone with the run: nothing left in the user's database.
                try {
                    QueueBench.sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                } catch (Exception e) {
                    System.err.println("Could not drop the bench's schema " + schema + ": " + e.getMessage()
                            + "; drop it by hand: DROP SCHEMA " + schema + " CASCADE");
                }
            }
        }
    }

    private record Result(double rate, Stats stats) {
    }

    /**
     * {@code callers} loops, each submitting and waiting over a connection of its own, for {@code length}; the first
     * second is not counted.
     */
    private static Result drive(int port, String body, int callers, Duration length) throws Exception {
        long warm = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        long end = warm + length.toNanos();
        ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        inParallel(callers, () -> {
            try (Submitter submitter = new Submitter(port, body)) {
                while (System.nanoTime() < end) {
                    long t = System.nanoTime();
                    submitter.submit();
                    if (t >= warm) {
                        latencies.add(System.nanoTime() - t);
                    }
                }
            }
        });
        Stats stats = new Stats(latencies.size());
        latencies.forEach(stats::add);
        return new Result(latencies.size() / (length.toNanos() / 1e9), stats);
    }

    private interface Caller {
        void run() throws Exception;
    }

    /** Runs {@code caller} on {@code n} virtual threads and waits for them; the first failure is thrown. */
    private static void inParallel(int n, Caller caller) throws Exception {
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    caller.run();
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    /**
     * One caller's keep-alive connection, its HTTP/1.1 written and read by hand: the load's own CPU stays small beside
     * the stack's, as a caller on another machine would be (the JDK's HttpClient took about a quarter of the two
     * cores with 64 callers, as much as the brain).
     */
    private static final class Submitter implements AutoCloseable {
        private final int port;
        private final byte[] request;
        private Socket socket;
        private BufferedInputStream in;

        Submitter(int port, String body) {
            this.port = port;
            byte[] json = body.getBytes(StandardCharsets.UTF_8);
            byte[] head = ("POST /api/v1/tasks?wait=30 HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAuthorization: Bearer "
                    + TOKEN + "\r\nContent-Type: application/json\r\nContent-Length: " + json.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            request = Arrays.copyOf(head, head.length + json.length);
            System.arraycopy(json, 0, request, head.length, json.length);
        }

        /** Submits the task and reads the answer: 200 with the task completed, or it throws. */
        void submit() throws IOException {
            if (socket == null) {
                socket = new Socket("127.0.0.1", port);
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(60_000);
                in = new BufferedInputStream(socket.getInputStream());
            }
            socket.getOutputStream().write(request);
            String status = line();
            int length = -1;
            boolean close = false;
            for (String header = line(); !header.isEmpty(); header = line()) {
                String lower = header.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Integer.parseInt(lower.substring(15).strip());
                } else if (lower.startsWith("connection:") && lower.contains("close")) {
                    close = true;
                }
            }
            if (length < 0) {
                // Its answers to this call are small JSON with a length; a chunked one is not read here.
                throw new IllegalStateException("the brain answered without a Content-Length: " + status);
            }
            byte[] read = in.readNBytes(length);
            if (read.length < length) {
                throw new IOException("the brain closed the connection after " + read.length + " of " + length
                        + " bytes of its answer");
            }
            String body = new String(read, StandardCharsets.UTF_8);
            if (close) {
                close();
            }
            if (!status.startsWith("HTTP/1.1 200") || !body.contains("\"status\":\"completed\"")) {
                throw new IllegalStateException("stat answered " + status + ": " + body);
            }
        }

        private String line() throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("the brain closed the connection mid-answer");
                }
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }

        @Override
        public void close() throws IOException {
            if (socket != null) {
                socket.close();
                socket = null;
            }
        }
    }

    private static void awaitHealthy(HttpClient http, int port, Process brain, Path log) throws Exception {
        for (int i = 0; i < 600; i++) {
            if (!brain.isAlive()) {
                throw new IllegalStateException("the brain exited:\n" + Files.readString(log));
            }
            try {
                if (get(http, port, "/observe/health").statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // Not listening yet.
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the brain did not become healthy:\n" + Files.readString(log));
    }

    private static void awaitWorkers(HttpClient http, int port, int workers) throws Exception {
        for (int i = 0; i < 600; i++) {
            String body = get(http, port, "/api/v1/workers").body();
            boolean named = IntStream.range(0, workers).allMatch(w -> body.contains("\"name\":\"w" + w + "\""));
            if (named && body.split("\"online\":true", -1).length - 1 >= workers) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the workers did not come online");
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The JVM options in system property {@code name}, space-separated, or {@code defaults}. */
    private static List<String> jvmOptions(String name, String defaults) {
        return Arrays.stream(System.getProperty(name, defaults).trim().split(" +"))
                .filter(o -> !o.isEmpty()).toList();
    }
}
