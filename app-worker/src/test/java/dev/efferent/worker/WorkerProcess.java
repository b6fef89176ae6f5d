package dev.efferent.worker;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A real worker process, started from the module path this test runs on, logging to a file: what a link or a
 * kill does to a worker is seen from outside, as a user sees it.
 */
final class WorkerProcess implements AutoCloseable {
    private final Process process;
    private final Path log;

    private WorkerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts a worker.
     *
     * @param dir      where its root, state (unless {@code env} names another) and log go
     * @param name     the worker's name, and its log's
     * @param brain    the brain it connects to
     * @param stateDir its state directory
     * @param env      {@code EFFERENT_*} settings
     */
    static WorkerProcess start(Path dir, String name, URI brain, Path stateDir, Map<String, String> env)
            throws IOException {
        Path root = Files.createDirectories(dir.resolve("root"));
        Path plugins = Files.createDirectories(dir.resolve("no-plugins"));
        Path log = dir.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-p", System.getProperty("jdk.module.path"),
                "-m", "efferent.worker/dev.efferent.worker.WorkerMain",
                "--brain-url", brain.toString(), "--name", name, "--root", root.toString(),
                "--state-dir", stateDir.toString(), "--plugins-dir", plugins.toString()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().keySet().removeIf(k -> k.startsWith("EFFERENT_"));
        builder.environment().put("EFFERENT_WORKER_SECRET", "s");
        builder.environment().putAll(env);
        return new WorkerProcess(builder.start(), log);
    }

    Process process() {
        return process;
    }

    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** Waits until the log holds {@code text}. */
    String awaitLog(String text, Duration wait) throws IOException, InterruptedException {
        long end = System.nanoTime() + wait.toNanos();
        while (!log().contains(text)) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the worker's log did not show '" + text + "' within " + wait.toMillis()
                        + " ms:\n" + log());
            }
            Thread.sleep(50);
        }
        return log();
    }

    /** SIGKILL: no shutdown hook runs, nothing is cleaned up. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        kill();
    }
}
