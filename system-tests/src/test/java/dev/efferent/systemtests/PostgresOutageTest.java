package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PostgreSQL restarts under a running brain: calls fail fast meanwhile, the brain recovers, nothing is lost. */
class PostgresOutageTest extends SystemFixture {

    @Test
    void theBrainRidesOutADatabaseRestart() throws Exception {
        Path pgDir = Files.createTempDirectory("efferent-pg");
        try (PrivatePostgres pg = PrivatePostgres.start(pgDir, freePort())) {
            Launched brain = brain("brain", freePort(), pg.url(), Map.of());
            Path root = dir.resolve("laptop");
            worker("laptop", root, List.of(brain));
            awaitWorkerOnline(brain, "laptop", 60);
            String running = submit(brain, "{\"tool\":\"run_shell\",\"params\":{\"command\":\"sleep 3; echo finished\"}}");
            awaitStatus(brain, running, "running", 30);

            pg.stop();
            long start = System.nanoTime();
            HttpResponse<String> during = send(brain, "POST", "/api/v1/tasks",
                    "{\"tool\":\"run_shell\",\"params\":{\"command\":\"true\"}}");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(503, during.statusCode(), during.body());
            assertTrue(during.body().contains("the task queue is unavailable: PostgreSQL could not"), during.body());
            assertTrue(ms < 10_000, "answered in " + ms + " ms, not hanging");
            assertEquals(503, send(brain, "GET", "/api/v1/tasks/" + running, null).statusCode());
            Thread.sleep(4000);

            pg.start();
            JsonNode done = awaitStatus(brain, running, "completed", 60);
            assertTrue(done.path("output").asText().contains("finished"), done.toString());
            String after = submit(brain, "{\"tool\":\"run_shell\",\"params\":{\"command\":\"echo after\"}}");
            assertEquals("completed", awaitStatus(brain, after, "completed", 60).path("status").asText());
            assertTrue(brain.process().isAlive(), "no restart needed");
        }
    }
}
