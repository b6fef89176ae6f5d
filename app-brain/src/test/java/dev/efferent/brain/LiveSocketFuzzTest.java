package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Throws generated frames at a live brain's {@code /ws/worker} and {@code /ws/console} over real sockets: every
 * frame the codec refuses is answered with an error frame, nothing closes a link but the rules (the abuse limit,
 * an over-long console message), the brain keeps answering, and its heap is flat after GC. Seeded, so a failure
 * can be replayed.
 */
class LiveSocketFuzzTest extends BrainFixture {
    private static final long SEED = Long.parseLong(System.getenv().getOrDefault("EFFERENT_FUZZ_SEED", "20261123"));
    private static final int WORKER_FRAMES = 3_000;
    private static final int CONSOLE_FRAMES = 2_000;
    /** Under the abuse limit (10 refused frames a minute), so every refusal is seen on a live link. */
    private static final int FRAMES_PER_LINK = 9;

    private final ProtocolCodec codec = new ProtocolCodec();

    @Test
    void generatedFramesAreAnsweredAndTheBrainStaysWellAndFlat() throws Exception {
        // Fuzzing links never heartbeat: a slow moment must not get one closed as silent.
        startBrain(true, Map.of("hands.heartbeat-interval", "30s"));
        Random random = new Random(SEED);
        // Warm up first, so that the heap measured before holds what the first use of each path loads.
        workerRound(random, 300);
        consoleRound(random, 200);
        long before = heapAfterGc();

        long start = System.nanoTime();
        Map<String, Integer> worker = workerRound(random, WORKER_FRAMES);
        Map<String, Integer> console = consoleRound(random, CONSOLE_FRAMES);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);

        assertEquals(200, request("GET", "/observe/health/live", null, null).statusCode());
        long after = heapAfterGc();
        long growthMiB = (after - before) >> 20;
        System.out.printf("live socket fuzz (seed " + SEED + "): %d worker frames %s, %d console frames %s, %d s, heap after GC "
                + "%d MiB -> %d MiB%n", WORKER_FRAMES, worker, CONSOLE_FRAMES, console, seconds, before >> 20, after >> 20);
        assertTrue(growthMiB < 16, "the heap grew by " + growthMiB + " MiB after the fuzzing");
    }

    /** Frames at /ws/worker, {@value #FRAMES_PER_LINK} per registered link; returns what happened, counted. */
    private Map<String, Integer> workerRound(Random random, int frames) throws Exception {
        Map<String, Integer> seen = new TreeMap<>();
        for (int sent = 0, link = 0; sent < frames; link++) {
            RawWorker w = RawWorker.connect(brain.port(), SECRET);
            String name = "fuzz-" + random.nextInt(1_000_000) + "-" + link;
            w.register(name, "[]");
            w.next("worker:ack");
            List<String> expected = new ArrayList<>();
            List<String> mine = new ArrayList<>();
            for (int i = 0; i < FRAMES_PER_LINK && sent < frames; i++, sent++) {
                String frame = WorkerFrames.next(random);
                mine.add(frame);
                try {
                    codec.decode(frame);
                    seen.merge("accepted by the codec", 1, Integer::sum);
                } catch (ProtocolException e) {
                    // As it can travel: UTF-8 has no lone surrogates, the sender writes '?' for one.
                    expected.add(new String(e.getMessage().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
                    seen.merge("refused", 1, Integer::sum);
                }
                w.send(frame);
            }
            // Each refusal the codec makes here must come back as an error frame with that very message.
            List<String> missing = new ArrayList<>(expected);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!missing.isEmpty() && System.nanoTime() < end) {
                String reply = w.frames.poll(100, TimeUnit.MILLISECONDS);
                if (reply != null) {
                    JsonNode node = JSON.readTree(reply);
                    String type = node.path("type").asText();
                    assertTrue(type.equals("error") || type.equals("task:result:ack"), reply);
                    if (type.equals("error")) {
                        assertTrue(!node.path("code").asText().isEmpty() && !node.path("message").asText().isEmpty(),
                                reply);
                        missing.remove(node.path("message").asText());
                    }
                }
            }
            assertEquals(List.of(), missing, "refused frames not answered; sent " + mine);
            assertTrue(!w.closed.isDone(), "the link closed (" + w.closed.getNow(null) + ") after " + mine);
            w.socket.sendClose(1000, "done").join();
            closed(w, seen);
            // Whatever became of the close reply, the brain must have heard the close.
            awaitWorker(name, false, 5);
        }
        return seen;
    }

    /** Frames at /ws/console after its token; returns what happened, counted. */
    private Map<String, Integer> consoleRound(Random random, int frames) throws Exception {
        Map<String, Integer> seen = new TreeMap<>();
        URI uri = URI.create("ws://127.0.0.1:" + brain.port() + "/ws/console");
        for (int sent = 0; sent < frames; ) {
            RawWorker c = RawWorker.open(uri, null);
            c.send("{\"type\":\"auth\",\"token\":\"" + TOKEN + "\"}");
            boolean tooLong = false;
            for (int i = 0; i < 20 && sent < frames && !tooLong; i++, sent++) {
                String frame = ConsoleFrames.next(random);
                tooLong = frame.length() > 64 * 1024;
                seen.merge(tooLong ? "too long" : "sent", 1, Integer::sum);
                c.send(frame);
            }
            if (tooLong) {
                // The brain stops reading mid-frame and closes with 1009; while the client is still writing the
                // rest, the kernel may answer with a reset that overtakes the close frame (-1, no code). Either way
                // the connection is closed at once, which is what must hold.
                int code = c.closed.get(5, TimeUnit.SECONDS);
                assertTrue(code == 1009 || code == -1, "an over-long console message closes the link, got " + code);
                continue;
            }
            assertTrue(!c.closed.isDone(), "the console closed (" + c.closed.getNow(null) + ")");
            c.socket.sendClose(1000, "done").join();
            closed(c, seen);
        }
        return seen;
    }


    /**
     * Waits for the brain's reply to our close. In about one close in ten thousand the JDK's client never reports
     * it, although the brain has handled the close (its log and its worker list say so); that is counted, and the
     * socket dropped, rather than failing the run.
     */
    private static void closed(RawWorker socket, Map<String, Integer> seen) throws Exception {
        try {
            socket.closed.get(5, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            seen.merge("close reply not seen", 1, Integer::sum);
            socket.socket.abort();
        }
    }

    private static long heapAfterGc() throws InterruptedException {
        var memory = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(200);
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    /** Worker frames: valid messages, then mutated as a careless or hostile worker would. */
    static final class WorkerFrames {
        private static final String RESULT = "{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"isError\":false}";
        private static final List<String> SEEDS = List.of(
                "{\"type\":\"worker:heartbeat\",\"uptimeSeconds\":1,\"loadAverage\":0.5,\"activeTasks\":0}",
                "{\"type\":\"task:accepted\",\"taskId\":\"t1\"}",
                "{\"type\":\"task:rejected\",\"taskId\":\"t1\",\"reason\":\"busy\",\"message\":\"full\"}",
                "{\"type\":\"task:progress\",\"taskId\":\"t1\",\"percent\":50,\"message\":\"half\"}",
                "{\"type\":\"task:result\",\"taskId\":\"t1\",\"status\":\"completed\",\"result\":" + RESULT
                        + ",\"durationMs\":3}",
                "{\"type\":\"task:result\",\"taskId\":\"t1\",\"status\":\"failed\",\"error\":\"boom\",\"durationMs\":3}",
                "{\"type\":\"worker:tools\",\"capabilities\":[{\"name\":\"stat\",\"inputSchema\":{\"type\":\"object\"},"
                        + "\"placement\":\"LOCAL\"}]}",
                "{\"type\":\"error\",\"code\":\"internal\",\"message\":\"oops\"}",
                "{\"type\":\"worker:register\",\"protocolVersion\":1,\"workerId\":\"x\",\"name\":\"x\","
                        + "\"capabilities\":[],\"maxConcurrentTasks\":1}",
                "{\"type\":\"task:dispatch\",\"taskId\":\"t1\",\"tool\":\"stat\",\"params\":{},\"attempt\":1}");
        private static final String[] VALUES = {"null", "true", "-1", "0", "1e400", "-1e400", "99999999999999999999",
            "1.5", "\"\"", "\"\\u0000\"", "\"\\ud800\"", "[]", "{}", "[1,[2,[3]]]", "\"" + "x".repeat(5_000) + "\"",
            "{\"type\":\"object\",\"$ref\":\"http://127.0.0.1:9/\"}", "\"task:result\"", "\"completed\""};

        static String next(Random random) {
            String seed = SEEDS.get(random.nextInt(SEEDS.size()));
            return switch (random.nextInt(8)) {
                case 0 -> seed;
                case 1 -> mutate(seed, random, false);
                case 2, 3 -> mutate(seed, random, true);
                case 4 -> seed.substring(0, random.nextInt(seed.length()));
                case 5 -> noise(random);
                case 6 -> "[".repeat(100 + random.nextInt(3_000)) + "]".repeat(random.nextInt(2));
                default -> seed.replace("\"type\":\"", "\"type\":\"" + (char) ('a' + random.nextInt(26)));
            };
        }

        /** Deletes a field, or replaces its value with one of {@link #VALUES}. */
        private static String mutate(String seed, Random random, boolean replace) {
            try {
                ObjectNode node = (ObjectNode) JSON.readTree(seed);
                List<String> fields = new ArrayList<>();
                for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                    fields.add(it.next());
                }
                String field = fields.get(random.nextInt(fields.size()));
                if (!replace) {
                    node.remove(field);
                    return JSON.writeValueAsString(node);
                }
                String placeholder = "\"@@" + field + "@@\"";
                node.put(field, placeholder.substring(1, placeholder.length() - 1));
                return JSON.writeValueAsString(node).replace(placeholder, VALUES[random.nextInt(VALUES.length)]);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }

        static String noise(Random random) {
            StringBuilder b = new StringBuilder();
            int n = 1 + random.nextInt(200);
            for (int i = 0; i < n; i++) {
                b.append((char) (random.nextBoolean() ? 32 + random.nextInt(95) : 0xa0 + random.nextInt(0xd000)));
            }
            return b.toString();
        }
    }

    /** Console frames: what a page, a script or a stranger with the token could send. */
    static final class ConsoleFrames {
        static String next(Random random) {
            return switch (random.nextInt(9)) {
                case 0, 1 -> "{\"type\":\"say\",\"text\":\"" + words(random) + "\"}";
                case 2 -> "{\"type\":\"say\",\"text\":" + WorkerFrames.VALUES[random.nextInt(WorkerFrames.VALUES.length)] + "}";
                case 3 -> "{\"type\":\"" + words(random) + "\"}";
                case 4 -> WorkerFrames.noise(random);
                case 5 -> "[".repeat(100 + random.nextInt(3_000));
                case 6 -> "{\"type\":\"auth\",\"token\":\"guess\"}";
                case 7 -> WorkerFrames.next(random);
                default -> random.nextInt(20) == 0 ? "{\"type\":\"say\",\"text\":\"" + "y".repeat(70_000) + "\"}"
                        : "{\"type\":\"say\"}";
            };
        }

        /** Nonsense words: free text the brain answers without running anything. */
        private static String words(Random random) {
            StringBuilder b = new StringBuilder();
            int n = 1 + random.nextInt(6);
            for (int i = 0; i < n; i++) {
                b.append(i == 0 ? "" : " ").append("zq").append(Integer.toString(random.nextInt(1 << 20), 36));
            }
            return b.toString();
        }
    }
}
