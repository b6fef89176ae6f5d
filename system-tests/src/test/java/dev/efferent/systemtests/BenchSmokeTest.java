package dev.efferent.systemtests;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every benchmark scenario for a moment (bench/run.sh --smoke), so the harness cannot rot. Timings are not checked. */
class BenchSmokeTest {

    @Test
    void everyScenarioRunsAndReportsItsFigures() throws Exception {
        assertFigures(smoke("all"), "roundtrip.dispatch.p50", "roundtrip.echo.p50", "throughput.workers.16",
                "drain.time", "queue.memory.claim-complete", "queue.postgres.insert-to-claim.p99",
                "connections.20.heap-used", "connections.20.rest-noop.p99", "stack.postgres.64.rate",
                "stack.memory.1.p50");
    }

    @Test
    void thePeersRunBesideTheQueueAndReportTheirFigures() throws Exception {
        // graphile-worker and pg-boss from the npm registry (bench/peers, installed on first use), run with Node.
        assertFigures(smoke("peers"), "peers.graphile.enqueue", "peers.graphile.drain",
                "peers.graphile.insert-to-start.p50", "peers.pgboss.enqueue", "peers.pgboss.drain-batched",
                "peers.pgboss.insert-to-start.p99");
    }

    @Test
    void theQueuesStatementsRunInPgbenchAloneAndReportTheirFigures() throws Exception {
        assertFigures(smoke("statements"), "statements.B", "statements.B-no-flush", "statements.claim-complete",
                "statements.claim", "statements.complete", "statements.claim-complete-no-flush");
    }

    /** What {@code bench/run.sh --smoke <scenario>} printed, once it ended well within 5 minutes. */
    private static String smoke(String scenario) throws Exception {
        Path root = Path.of(System.getProperty("efferent.test.root")).toAbsolutePath().normalize();
        Path out = Files.createTempFile("bench-smoke-" + scenario, ".txt");
        ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("bench/run.sh").toString(), "--smoke", scenario)
                .directory(root.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("the smoke run of " + scenario + " took more than 5 minutes:\n"
                    + Files.readString(out));
        }
        String text = Files.readString(out);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    private static void assertFigures(String text, String... keys) {
        for (String key : keys) {
            assertTrue(text.contains(key + " = "), key + " missing from\n" + text);
        }
    }
}
