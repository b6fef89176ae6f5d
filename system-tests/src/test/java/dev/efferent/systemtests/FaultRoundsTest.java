package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Processes SIGKILLed mid-task, round after round, with the PostgreSQL queue. Each task runs {@code run_shell}
 * (not idempotent) with a command that first appends its round's tag to {@code runs.log} in the worker's root, so
 * the file counts executions. The figures are printed for docs/RELIABILITY.md.
 */
class FaultRoundsTest extends SystemFixture {
    private static final String FINISHED = "completed|failed|cancelled";

    @Test
    void aWorkerKilledMidTaskTwentyTimes() throws Exception {
        Launched brain = brain("brain", Map.of());
        Path root = dir.resolve("laptop");
        Launched worker = worker("laptop", root, List.of(brain));
        awaitWorkerOnline(brain, "laptop", 60);

        int rounds = 20;
        Map<String, String> tasks = new LinkedHashMap<>();
        long maxBackMs = 0;
        long maxEndedMs = 0;
        for (int i = 0; i < rounds; i++) {
            String tag = "w" + i;
            String id = submit(brain, task(tag, "laptop"));
            tasks.put(tag, id);
            awaitStatus(brain, id, "running", 30);
            // Kill at different points: right at accept (the command may not have started) up to well inside it.
            Thread.sleep((i % 4) * 250L);
            long killed = System.nanoTime();
            worker.process().destroyForcibly();
            assertTrue(worker.process().waitFor(30, TimeUnit.SECONDS), "worker killed");
            keepLog(worker, "workerKills", "laptop-" + i);

            // Lost with the worker: run_shell is not idempotent, so it fails rather than running again.
            awaitTask(brain, id, 30, n -> n.path("status").asText().matches(FINISHED));
            maxEndedMs = Math.max(maxEndedMs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed));
            long start = System.nanoTime();
            worker = worker("laptop", root, List.of(brain));
            awaitWorkerOnline(brain, "laptop", 60);
            maxBackMs = Math.max(maxBackMs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        // A last task on the last worker: the worker still works after twenty of its predecessors died.
        String last = submit(brain, task("after", "laptop"));
        tasks.put("after", last);
        assertEquals("completed", awaitTask(brain, last, 30, n -> n.path("status").asText().matches(FINISHED))
                .path("status").asText());

        Figures f = check(brain, root, tasks, false);
        System.out.println("FaultRoundsTest worker SIGKILL: rounds=" + rounds + " completed=" + (f.completed - 1)
                + " failed-with-reason=" + f.failed + " reasons=" + f.reasons + " runs-per-task<=1, commands started="
                + f.started + "/" + rounds + " max-kill-to-task-ended-ms=" + maxEndedMs + " max-new-worker-online-ms="
                + maxBackMs);
    }

    @Test
    void aBrainKilledMidTaskTwentyTimes() throws Exception {
        int port = freePort();
        Launched brain = brain("brain-0", port, DB_URL, Map.of());
        Path root = dir.resolve("laptop");
        worker("laptop", root, List.of(brain));
        awaitWorkerOnline(brain, "laptop", 60);

        int rounds = 20;
        Map<String, String> tasks = new LinkedHashMap<>();
        long maxBackMs = 0;
        long maxDownMs = 0;
        for (int i = 0; i < rounds; i++) {
            String tag = "b" + i;
            String id = submit(brain, task(tag, "laptop"));
            tasks.put(tag, id);
            awaitStatus(brain, id, "running", 30);
            Thread.sleep((i % 4) * 100L);
            long down = System.nanoTime();
            brain.process().destroyForcibly();
            assertTrue(brain.process().waitFor(30, TimeUnit.SECONDS), "brain killed");
            brain = brain("brain-" + (i + 1), port, DB_URL, Map.of());
            long up = System.nanoTime();
            awaitWorkerOnline(brain, "laptop", 30);
            long back = System.nanoTime();
            maxBackMs = Math.max(maxBackMs, TimeUnit.NANOSECONDS.toMillis(back - up));
            maxDownMs = Math.max(maxDownMs, TimeUnit.NANOSECONDS.toMillis(back - down));
        }
        for (String id : tasks.values()) {
            awaitTask(brain, id, 30, n -> n.path("status").asText().matches(FINISHED));
        }
        Figures f = check(brain, root, tasks, true);
        System.out.println("FaultRoundsTest brain SIGKILL: rounds=" + rounds + " completed=" + f.completed
                + " failed-with-reason=" + f.failed + " reasons=" + f.reasons + " each ran exactly once"
                + " max-worker-online-after-brain-healthy-ms=" + maxBackMs + " max-kill-to-worker-online-ms="
                + maxDownMs);
    }

    @Test
    void tenQuickBrainKillsAndTheWorkerIsBackWithinItsBackoff() throws Exception {
        int port = freePort();
        Launched brain = brain("brain-0", port, DB_URL, Map.of());
        Path root = dir.resolve("laptop");
        worker("laptop", root, List.of(brain));
        awaitWorkerOnline(brain, "laptop", 60);

        int kills = 10;
        long start = System.nanoTime();
        for (int i = 0; i < kills; i++) {
            brain.process().destroyForcibly();
            assertTrue(brain.process().waitFor(30, TimeUnit.SECONDS), "brain killed");
            brain = brain("brain-" + (i + 1), port, DB_URL, Map.of());
        }
        long killsMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long up = System.nanoTime();
        awaitWorkerOnline(brain, "laptop", 30);
        long backMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - up);
        // Reconnect max is 2 s (jittered in its upper half); registering adds a little.
        assertTrue(backMs < 5_000, "worker back online " + backMs + " ms after the last restart");

        String id = submit(brain, task("quick", "laptop"));
        JsonNode t = awaitTask(brain, id, 30, n -> n.path("status").asText().matches(FINISHED));
        assertEquals("completed", t.path("status").asText(), t.toString());
        assertEquals(List.of("quick"), Files.readAllLines(root.resolve("runs.log")));
        System.out.println("FaultRoundsTest quick brain SIGKILLs: kills=" + kills + " in " + killsMs
                + " ms, worker online " + backMs + " ms after the last restart, then a task completed");
    }

    private static String task(String tag, String worker) {
        return "{\"tool\":\"run_shell\",\"worker\":\"" + worker + "\",\"params\":{\"command\":\"echo " + tag
                + " >> runs.log; sleep 1\"}}";
    }

    private record Figures(int completed, int failed, Map<String, Integer> reasons, int started) {
    }

    /**
     * Every task ended completed, or failed with a reason; nothing is left queued or running; none ran twice; a
     * completed one ran once; with {@code allStarted}, every one ran once.
     */
    private Figures check(Launched brain, Path root, Map<String, String> tasks, boolean allStarted) throws Exception {
        List<String> left = sql("SELECT id, status FROM " + schema + ".tasks WHERE status NOT IN ('COMPLETED', 'FAILED')");
        assertEquals(List.of(), left, "no task left queued, claimed or running");
        List<String> lines = Files.exists(root.resolve("runs.log")) ? Files.readAllLines(root.resolve("runs.log"))
                : List.of();
        int completed = 0;
        int failed = 0;
        int started = 0;
        Map<String, Integer> reasons = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> e : tasks.entrySet()) {
            String tag = e.getKey();
            JsonNode t = call(brain, "GET", "/api/v1/tasks/" + e.getValue(), null, 200);
            long runs = lines.stream().filter(tag::equals).count();
            started += runs > 0 ? 1 : 0;
            String status = t.path("status").asText();
            if (runs > 1) {
                problems.add(tag + " ran " + runs + " times: " + t);
            }
            switch (status) {
                case "completed" -> {
                    completed++;
                    if (runs != 1) {
                        problems.add(tag + " completed but ran " + runs + " times: " + t);
                    }
                }
                case "failed" -> {
                    failed++;
                    String error = t.path("error").asText();
                    if (error.isBlank()) {
                        problems.add(tag + " failed without a reason: " + t);
                    }
                    reasons.merge(error, 1, Integer::sum);
                }
                default -> problems.add(tag + " ended " + status + ": " + t);
            }
            if (allStarted && runs != 1) {
                problems.add(tag + " ran " + runs + " times, expected once: " + t);
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems) + "\nruns.log: " + lines);
        assertFalse(tasks.isEmpty());
        return new Figures(completed, failed, reasons, started);
    }

    /** Keeps a killed process's log: the next process of that name writes over it. */
    private static void keepLog(Launched l, String test, String as) throws IOException {
        Path keep = Path.of("target", "system-test-logs", "FaultRoundsTest." + test);
        Files.createDirectories(keep);
        Files.copy(l.log(), keep.resolve(as + ".log"), StandardCopyOption.REPLACE_EXISTING);
    }
}
