package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Launches real brains and workers the way users do ({@code java -p target/lib -m …}), on loopback, over a
 * PostgreSQL queue in a schema of the test's own: {@code EFFERENT_TEST_DB_URL} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/test}), {@code EFFERENT_TEST_DB_USER} ({@code postgres}),
 * {@code EFFERENT_TEST_DB_PASSWORD} (empty).
 */
abstract class SystemFixture {
    static final String SECRET = "system-test-secret";
    static final String TOKEN = "system-test-token";
    static final ObjectMapper JSON = new ObjectMapper();
    static final String DB_URL = env("EFFERENT_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/test");
    static final String DB_USER = env("EFFERENT_TEST_DB_USER", "postgres");
    static final String DB_PASSWORD = env("EFFERENT_TEST_DB_PASSWORD", "");

    @TempDir
    Path dir;
    final String schema = "efferent_sys_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    final List<Launched> launched = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A launched process and what it is reachable at. */
    record Launched(String name, Process process, Path log, int port) {
        void kill() throws InterruptedException {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }

        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }

        String output() {
            try {
                return Files.readString(log);
            } catch (IOException e) {
                return "(no log: " + e.getMessage() + ")";
            }
        }
    }

    /** Starts a brain with hands enabled over the test's PostgreSQL schema; waits until it is healthy. */
    Launched brain(String name, Map<String, String> extraEnv) throws Exception {
        return brain(name, freePort(), DB_URL, extraEnv);
    }

    Launched brain(String name, int port, String dbUrl, Map<String, String> extraEnv) throws Exception {
        Path root = dir.resolve("root-" + name);
        Files.createDirectories(root);
        Map<String, String> env = new HashMap<>(Map.of(
                "EFFERENT_QUEUE_PROVIDER", "postgres",
                "EFFERENT_DB_URL", dbUrl,
                "EFFERENT_DB_USER", DB_USER,
                "EFFERENT_DB_PASSWORD", DB_PASSWORD,
                "EFFERENT_QUEUE_POSTGRES_SCHEMA", schema,
                "EFFERENT_WORKER_SECRET", SECRET,
                "EFFERENT_API_TOKEN", TOKEN,
                "EFFERENT_HANDS_HEARTBEAT__INTERVAL", "500ms",
                "EFFERENT_TASKS_POLL__INTERVAL", "200ms",
                "EFFERENT_TOOLS_ROOTS", root.toString()));
        env.put("EFFERENT_TASKS_LEASE", "4s");
        env.putAll(extraEnv);
        Launched brain = launch(name, lib("brain").toString(), "efferent.brain/dev.efferent.brain.BrainMain", env, port,
                "--hands", "--port", String.valueOf(port));
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < end) {
            if (!brain.process().isAlive()) {
                throw new AssertionError("brain " + name + " exited with " + brain.process().exitValue() + ":\n"
                        + brain.output());
            }
            if (status(brain, "GET", "/observe/health", null) == 200) {
                return brain;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("brain " + name + " did not become healthy within 60s:\n" + brain.output());
    }

    /** Starts a worker connected to the given brains, in turn. */
    Launched worker(String name, Path root, List<Launched> brains, String... extraArgs) throws Exception {
        return worker(name, root, brains, List.of(), Map.of(), extraArgs);
    }

    /**
     * Starts a worker with toolkits from {@code plugins} ({@code "browser"}, {@code "mcp"}) on its module path, as
     * {@code --browser} and {@code --mcp} add them, and {@code env} added to its environment.
     */
    Launched worker(String name, Path root, List<Launched> brains, List<String> plugins, Map<String, String> env,
                    String... extraArgs) throws Exception {
        Files.createDirectories(root);
        List<String> args = new ArrayList<>();
        for (Launched b : brains) {
            args.add("--brain-url");
            args.add("ws://127.0.0.1:" + b.port());
        }
        args.addAll(List.of("--name", name, "--root", root.toString(), "--state-dir",
                dir.resolve("state-" + name).toString(), "--max-concurrency", "4"));
        args.addAll(List.of(extraArgs));
        StringBuilder modulePath = new StringBuilder(lib("worker").toString());
        plugins.forEach(p -> modulePath.append(File.pathSeparator).append(lib(p)));
        Map<String, String> all = new HashMap<>(env);
        all.putIfAbsent("EFFERENT_WORKER_SECRET", SECRET);
        all.putIfAbsent("EFFERENT_WORKER_RECONNECT_MAX", "2s");
        return launch(name, modulePath.toString(), "efferent.worker/dev.efferent.worker.WorkerMain", all, 0,
                args.toArray(String[]::new));
    }

    private Launched launch(String name, String modulePath, String module, Map<String, String> env, int port,
                            String... args) throws IOException {
        // C1 only: these processes live for seconds, and a brain then starts on half the CPU (0.9 s instead of 1.4 s
        // to healthy here); what they do is the same.
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-p", modulePath, "-m", module));
        command.addAll(List.of(args));
        Path log = dir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("EFFERENT_"));
        pb.environment().putAll(env);
        Launched l = new Launched(name, pb.start(), log, port);
        launched.add(l);
        return l;
    }

    private static Path lib(String app) {
        Path lib = Path.of(System.getProperty("efferent.test." + app + ".lib"));
        if (!Files.isDirectory(lib)) {
            throw new AssertionError("the " + app + "'s module path " + lib + " is missing: package the apps first");
        }
        return lib;
    }

    @AfterEach
    void stopEverything(TestInfo test) throws Exception {
        Path keep = Path.of("target", "system-test-logs", test.getTestClass().map(Class::getSimpleName).orElse("")
                + "." + test.getTestMethod().map(Method::getName).orElse(""));
        Files.createDirectories(keep);
        for (Launched l : launched) {
            l.kill();
            // Kept for reading after a failure: the temporary directory goes away with the test.
            Files.copy(l.log(), keep.resolve(l.name() + ".log"), StandardCopyOption.REPLACE_EXISTING);
        }
        sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    int status(Launched brain, String method, String path, String body) {
        try {
            return send(brain, method, path, body).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    HttpResponse<String> send(Launched brain, String method, String path, String body) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brain.port() + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    JsonNode call(Launched brain, String method, String path, String body, int expected) throws IOException {
        HttpResponse<String> r = send(brain, method, path, body);
        if (r.statusCode() != expected) {
            throw new AssertionError(method + " " + path + " on " + brain.name() + " answered " + r.statusCode()
                    + ", expected " + expected + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    String submit(Launched brain, String body) throws IOException {
        return call(brain, "POST", "/api/v1/tasks", body, 202).path("id").asText();
    }

    JsonNode awaitTask(Launched brain, String id, int seconds, Predicate<JsonNode> done) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        JsonNode last = null;
        while (System.nanoTime() < end) {
            HttpResponse<String> r = send(brain, "GET", "/api/v1/tasks/" + id, null);
            if (r.statusCode() == 200) {
                last = JSON.readTree(r.body());
                if (done.test(last)) {
                    return last;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("task " + id + " did not reach the expected state within " + seconds + "s: " + last
                + "\n--- " + brain.name() + " ---\n" + brain.output());
    }

    JsonNode awaitStatus(Launched brain, String id, String status, int seconds) throws Exception {
        return awaitTask(brain, id, seconds, t -> status.equals(t.path("status").asText()));
    }

    void awaitWorkerOnline(Launched brain, String name, int seconds) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (System.nanoTime() < end) {
            for (JsonNode w : call(brain, "GET", "/api/v1/workers", null, 200).path("workers")) {
                if (w.path("name").asText().equals(name) && w.path("online").asBoolean()) {
                    return;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("worker " + name + " never came online at " + brain.name() + ":\n" + brain.output());
    }

    /** Rows of a query against the test database, each row's columns joined by '|'. */
    List<String> sql(String query) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", DB_USER);
        p.setProperty("password", DB_PASSWORD);
        try (Connection c = DriverManager.getConnection(DB_URL, p); Statement s = c.createStatement()) {
            if (!s.execute(query)) {
                return List.of();
            }
            List<String> rows = new ArrayList<>();
            try (ResultSet rs = s.getResultSet()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= n; i++) {
                        row.append(i > 1 ? "|" : "").append(rs.getString(i));
                    }
                    rows.add(row.toString());
                }
            }
            return rows;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String env(String name, String defaultValue) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? defaultValue : value;
    }
}
