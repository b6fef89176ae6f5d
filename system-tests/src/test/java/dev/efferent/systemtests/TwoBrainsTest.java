package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two brains over one database, a worker on each: every task is claimed and run exactly once. */
class TwoBrainsTest extends SystemFixture {

    @Test
    void everyTaskRunsExactlyOnce() throws Exception {
        Launched a = brain("brain-a", Map.of());
        Launched b = brain("brain-b", Map.of());
        Path shared = dir.resolve("shared");
        Files.createDirectories(shared);
        Path log = shared.resolve("ran.txt");
        // Both workers append to one file: it must be inside a root of each, as the shell sandbox allows no other writes.
        worker("worker-a", dir.resolve("root-a"), List.of(a), "--root", shared.toString());
        worker("worker-b", dir.resolve("root-b"), List.of(b), "--root", shared.toString());
        awaitWorkerOnline(a, "worker-a", 60);
        awaitWorkerOnline(b, "worker-b", 60);

        int count = 60;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Launched at = i % 2 == 0 ? a : b;
            ids.add(submit(at, "{\"tool\":\"run_shell\",\"params\":{\"command\":\"echo task-" + i + " >> " + log
                    + "\"}}"));
        }
        Set<String> ranOn = new HashSet<>();
        for (String id : ids) {
            JsonNode t = awaitStatus(a, id, 60, "completed");
            ranOn.add(t.path("runningOn").asText());
        }
        List<String> lines = Files.readAllLines(log);
        assertEquals(count, lines.size(), "each task ran once: " + lines);
        assertEquals(count, new HashSet<>(lines).size());
        assertEquals(List.of(String.valueOf(count)), sql("SELECT count(*) FROM " + schema
                + ".tasks WHERE status = 'COMPLETED' AND attempt = 1"));
        assertTrue(ranOn.size() == 2, "both workers took work: " + ranOn);
    }

    @Test
    void everyFireOfAScheduleHappensOnceWithTwoBrainsOverOneDatabase() throws Exception {
        // Each brain looks for schedules every 200 ms, so both are at every fire.
        Map<String, String> often = Map.of("EFFERENT_SCHEDULER_CHECK__INTERVAL", "200ms");
        Launched a = brain("brain-a", often);
        Launched b = brain("brain-b", often);
        Path shared = dir.resolve("shared");
        Files.createDirectories(shared);
        Path log = shared.resolve("fires.txt");
        worker("worker-a", dir.resolve("root-a"), List.of(a), "--root", shared.toString());
        worker("worker-b", dir.resolve("root-b"), List.of(b), "--root", shared.toString());
        awaitWorkerOnline(a, "worker-a", 60);
        awaitWorkerOnline(b, "worker-b", 60);

        call(a, "POST", "/api/v1/schedules", "{\"every\": \"1s\", \"maxRuns\": 20, \"tool\": \"run_shell\", "
                + "\"params\": {\"command\": \"echo fire >> " + log + "\"}, \"conversation\": \"fires\"}", 201);
        call(b, "POST", "/api/v1/schedules", "{\"every\": \"1s\", \"maxRuns\": 20, \"remind\": \"tick\", "
                + "\"conversation\": \"ticks\"}", 201);
        long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < end && (!call(a, "GET", "/api/v1/schedules", null, 200).path("schedules").isEmpty()
                || !sql("SELECT count(*) FROM " + schema + ".tasks WHERE idempotency_key LIKE 'schedule:%' AND status "
                + "<> 'COMPLETED'").equals(List.of("0")))) {
            Thread.sleep(200);
        }
        assertEquals(List.of("20|20"), sql("SELECT count(*), count(DISTINCT idempotency_key) FROM " + schema
                + ".tasks WHERE idempotency_key LIKE 'schedule:%' AND status = 'COMPLETED'"), "one task per fire");
        assertEquals(20, Files.readAllLines(log).size(), "each fire ran once");
        JsonNode ticks = call(a, "GET", "/api/v1/conversations/ticks/messages", null, 200).path("messages");
        int reminders = 0;
        for (JsonNode m : ticks) {
            reminders += m.path("text").asText().equals("⏰ tick") ? 1 : 0;
        }
        assertEquals(20, reminders, "each reminder posted once: " + ticks);
    }

    private JsonNode awaitStatus(Launched brain, String id, int seconds, String status) throws Exception {
        return awaitStatus(brain, id, status, seconds);
    }
}
