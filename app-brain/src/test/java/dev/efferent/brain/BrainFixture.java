package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.core.config.ConfigLoader;
import io.helidon.config.Config;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Starts real brains in this JVM and real worker processes (from app-worker/target/lib) on loopback, and
 * talks to the brain's REST API with the JDK's HTTP client.
 */
abstract class BrainFixture {
    static final String SECRET = "test-worker-secret";
    static final String TOKEN = "test-api-token";
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration HEARTBEAT = Duration.ofMillis(500);

    @TempDir
    Path dir;
    Brain brain;
    final List<Process> workers = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    Brain startBrain(boolean hands, Map<String, String> extra) {
        return startBrain(hands, 0, extra);
    }

    Brain startBrain(boolean hands, int port, Map<String, String> extra) {
        brain = new BrainAssembly(config(hands, port, extra)).start();
        return brain;
    }

    /** The configuration {@link #startBrain} starts a brain with. */
    Config config(boolean hands, int port, Map<String, String> extra) {
        Map<String, String> values = new HashMap<>(Map.of(
                "server.port", String.valueOf(port),
                "hands.enabled", String.valueOf(hands),
                "hands.heartbeat-interval", HEARTBEAT.toMillis() + "ms",
                "tasks.poll-interval", "200ms",
                "worker.secret", SECRET,
                "api.token", TOKEN,
                "tools.roots", brainRoot().toString()));
        values.putAll(extra);
        return ConfigLoader.load(values, Map.of(), Map.of());
    }

    Path brainRoot() {
        Path root = dir.resolve("brain-root");
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return root;
    }

    /** Starts a worker process; {@code env} adds EFFERENT_* variables, e.g. to disable a toolkit. */
    Process startWorker(String name, Path root, Map<String, String> env, String... extraArgs) throws IOException {
        Path lib = Path.of(System.getProperty("efferent.test.worker.lib"));
        if (!Files.isDirectory(lib)) {
            throw new AssertionError("the worker's module path " + lib + " is missing: build app-worker first");
        }
        Files.createDirectories(root);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-p", lib.toString(), "-m", "efferent.worker/dev.efferent.worker.WorkerMain",
                "--brain-url", "ws://127.0.0.1:" + brain.port(),
                "--name", name, "--root", root.toString(),
                "--state-dir", dir.resolve("state-" + name).toString()));
        command.addAll(List.of(extraArgs));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("worker-" + name + ".log").toFile());
        pb.environment().put("EFFERENT_WORKER_SECRET", SECRET);
        pb.environment().putAll(env);
        Process p = pb.start();
        workers.add(p);
        return p;
    }

    String workerLog(String name) throws IOException {
        return Files.readString(dir.resolve("worker-" + name + ".log"));
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        for (Process p : workers) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
        }
        if (brain != null) {
            brain.close();
        }
    }

    HttpResponse<String> request(String method, String path, String body, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brain.port() + path))
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (!method.equals("GET")) {
            b.header("Content-Type", "application/json");
        }
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    JsonNode call(String method, String path, String body, int expectedStatus) {
        HttpResponse<String> r = request(method, path, body, TOKEN);
        if (r.statusCode() != expectedStatus) {
            throw new AssertionError(method + " " + path + " answered " + r.statusCode() + ", expected "
                    + expectedStatus + ": " + r.body());
        }
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    JsonNode submit(String body) {
        return call("POST", "/api/v1/tasks", body, 202);
    }

    JsonNode task(String id) {
        return call("GET", "/api/v1/tasks/" + id, null, 200);
    }

    /** Polls the task until {@code done} holds, for up to {@code seconds}. */
    JsonNode awaitTask(String id, int seconds, Predicate<JsonNode> done) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        JsonNode t = task(id);
        while (!done.test(t) && System.nanoTime() < end) {
            Thread.sleep(50);
            t = task(id);
        }
        if (!done.test(t)) {
            throw new AssertionError("task did not reach the expected state in " + seconds + "s: " + t);
        }
        return t;
    }

    /** The history of REST conversation {@code conversation} once it holds {@code text} (within 30 s). */
    JsonNode awaitMessage(String conversation, String text) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        JsonNode history = null;
        while (System.nanoTime() < end) {
            history = call("GET", "/api/v1/conversations/" + conversation + "/messages", null, 200);
            if (history.toString().contains(text)) {
                return history;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("'" + text + "' never appeared in " + conversation + ": " + history);
    }

    JsonNode awaitStatus(String id, String status, int seconds) throws InterruptedException {
        return awaitTask(id, seconds, t -> status.equals(t.path("status").asText()));
    }

    /** Waits until the brain lists a worker named {@code name} with the given online state. */
    JsonNode awaitWorker(String name, boolean online, int seconds) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (System.nanoTime() < end) {
            for (JsonNode w : call("GET", "/api/v1/workers", null, 200).path("workers")) {
                if (w.path("name").asText().equals(name) && w.path("online").asBoolean() == online) {
                    return w;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("worker " + name + " was not " + (online ? "online" : "offline") + " within "
                + seconds + "s: " + call("GET", "/api/v1/workers", null, 200));
    }
}
