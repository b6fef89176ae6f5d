package dev.efferent.bench;

import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Router;
import dev.efferent.router.TaskRequest;
import io.helidon.common.socket.SocketOptions;
import io.helidon.webclient.websocket.WsClient;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.LogManager;

/**
 * Runs the scenarios and prints one line per figure ({@code key = value}); bench/run.sh turns them into a report
 * under bench/target. {@code --smoke} runs each scenario for a moment, so the tests keep the harness alive.
 */
public final class BenchMain {
    static final Map<String, String> FIGURES = new LinkedHashMap<>();
    private static boolean smoke;

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        List<String> scenarios = new ArrayList<>();
        for (String a : args) {
            if (a.equals("--smoke")) {
                smoke = true;
            } else {
                scenarios.add(a);
            }
        }
        if (scenarios.isEmpty() || scenarios.contains("all")) {
            scenarios = List.of("roundtrip", "throughput", "drain", "queue", "connections", "agent", "stack");
        }
        if (!Boolean.getBoolean("efferent.bench.log")) {
            LogManager.getLogManager().reset();
        }
        for (String s : scenarios) {
            long start = System.nanoTime();
            switch (s) {
                case "roundtrip" -> roundtrip();
                case "throughput" -> throughput();
                case "drain" -> drain();
                case "queue" -> QueueBench.run(smoke);
                case "connections" -> ConnectionsBench.run(smoke);
                case "agent" -> AgentBench.run(smoke);
                case "stack" -> StackBench.run(smoke);
                case "statements" -> StatementsBench.run(smoke);
                default -> throw new IllegalArgumentException("unknown scenario '" + s
                        + "'; use roundtrip, throughput, drain, queue, connections, agent, stack, statements or all");
            }
            System.err.printf(Locale.ROOT, "scenario %s took %.1f s%n", s, (System.nanoTime() - start) / 1e9);
        }
        FIGURES.forEach((k, v) -> System.out.println(k + " = " + v));
        System.exit(0);
    }

    static void figure(String key, String value) {
        FIGURES.put(key, value);
        System.err.println(key + " = " + value);
    }

    static int scaled(int full) {
        return smoke ? Math.max(10, full / 100) : full;
    }

    /** Three runs each of the echo floor and the dispatch round trip; medians of their p50 and p99. */
    private static void roundtrip() throws Exception {
        int calls = scaled(10_000);
        long[] echo50 = new long[3];
        long[] echo99 = new long[3];
        long[] rt50 = new long[3];
        long[] rt99 = new long[3];
        try (BenchBrain brain = new BenchBrain("memory", Map.of())) {
            BenchWorker worker = BenchWorker.connect(brain.port(), "w1", 4);
            worker.registered.get(10, TimeUnit.SECONDS);
            for (int run = 0; run < 3; run++) {
                Stats echo = echo(brain.port(), calls);
                echo50[run] = echo.percentile(50);
                echo99[run] = echo.percentile(99);
                Stats rt = dispatch(brain.router, calls);
                rt50[run] = rt.percentile(50);
                rt99[run] = rt.percentile(99);
            }
            worker.close();
        }
        long floor = Stats.median(echo50);
        long p50 = Stats.median(rt50);
        figure("roundtrip.calls", String.valueOf(calls));
        figure("roundtrip.echo.p50", Stats.micros(floor));
        figure("roundtrip.echo.p99", Stats.micros(Stats.median(echo99)));
        figure("roundtrip.dispatch.p50", Stats.micros(p50));
        figure("roundtrip.dispatch.p99", Stats.micros(Stats.median(rt99)));
        figure("roundtrip.ratio", String.format(Locale.ROOT, "%.1f×", (double) p50 / floor));
    }

    static Stats dispatch(Router router, int calls) throws Exception {
        for (int i = 0; i < Math.min(2000, calls); i++) {
            one(router);
        }
        Stats stats = new Stats(calls);
        for (int i = 0; i < calls; i++) {
            long t = System.nanoTime();
            one(router);
            stats.add(System.nanoTime() - t);
        }
        return stats;
    }

    private static void one(Router router) throws Exception {
        Task submitted = router.submit(TaskRequest.of("noop", BenchWorker.JSON.createObjectNode())).task();
        Task done = router.completion(submitted.id()).get(10, TimeUnit.SECONDS);
        if (done.status() != TaskStatus.COMPLETED) {
            throw new IllegalStateException("noop ended " + done.status());
        }
    }

    /** The p50 of a WebSocket echo on a brain of this process: the floor of any round trip over a WebSocket. */
    static long echoFloor(int calls) throws Exception {
        try (BenchBrain brain = new BenchBrain("memory", Map.of())) {
            return echo(brain.port(), calls).percentile(50);
        }
    }

    private static Stats echo(int port, int calls) throws Exception {
        AtomicReference<CompletableFuture<String>> pending = new AtomicReference<>();
        CompletableFuture<WsSession> open = new CompletableFuture<>();
        WsClient.builder().baseUri("ws://127.0.0.1:" + port)
                .socketOptions(SocketOptions.builder().tcpNoDelay(true).build())
                .build().connect("/echo", new WsListener() {
            @Override
            public void onOpen(WsSession session) {
                open.complete(session);
            }

            @Override
            public void onMessage(WsSession session, String text, boolean last) {
                pending.get().complete(text);
            }
        });
        WsSession session = open.get(10, TimeUnit.SECONDS);
        String frame = "{\"type\":\"ping\"}";
        for (int i = 0; i < Math.min(2000, calls); i++) {
            pending.set(new CompletableFuture<>());
            session.send(frame, true);
            pending.get().get(5, TimeUnit.SECONDS);
        }
        Stats stats = new Stats(calls);
        for (int i = 0; i < calls; i++) {
            CompletableFuture<String> f = new CompletableFuture<>();
            pending.set(f);
            long t = System.nanoTime();
            session.send(frame, true);
            f.get(5, TimeUnit.SECONDS);
            stats.add(System.nanoTime() - t);
        }
        session.close(1000, "done");
        return stats;
    }

    /** Tasks/s through 1, 4 and 16 workers (4 slots each), with 64 callers submitting and waiting. */
    private static void throughput() throws Exception {
        for (int workers : new int[]{1, 4, 16}) {
            double[] runs = new double[3];
            for (int run = 0; run < 3; run++) {
                try (BenchBrain brain = new BenchBrain("memory", Map.of())) {
                    List<BenchWorker> list = new ArrayList<>();
                    for (int w = 0; w < workers; w++) {
                        BenchWorker bw = BenchWorker.connect(brain.port(), "w" + w, 4);
                        bw.registered.get(10, TimeUnit.SECONDS);
                        list.add(bw);
                    }
                    runs[run] = callers(brain.router, 64, scaled(20_000));
                    list.forEach(BenchWorker::close);
                }
            }
            figure("throughput.workers." + workers, String.format(Locale.ROOT, "%.0f tasks/s", Stats.median(runs)));
        }
    }

    static double callers(Router router, int callers, int tasks) throws Exception {
        int each = Math.max(1, tasks / callers);
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int c = 0; c < callers; c++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < each; i++) {
                        one(router);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        return each * callers / ((System.nanoTime() - start) / 1e9);
    }

    /** 10,000 tasks queued while no worker is online, then one worker (16 slots) connects. */
    private static void drain() throws Exception {
        int tasks = scaled(10_000);
        long[] runs = new long[3];
        for (int run = 0; run < 3; run++) {
            try (BenchBrain brain = new BenchBrain("memory", Map.of())) {
                BenchWorker first = BenchWorker.connect(brain.port(), "w0", 16);
                first.registered.get(10, TimeUnit.SECONDS);
                first.close();
                Thread.sleep(200);
                List<String> ids = new ArrayList<>(tasks);
                for (int i = 0; i < tasks; i++) {
                    ids.add(brain.router.submit(TaskRequest.of("noop", BenchWorker.JSON.createObjectNode())).task().id());
                }
                String last = ids.getLast();
                long start = System.nanoTime();
                BenchWorker worker = BenchWorker.connect(brain.port(), "w0", 16);
                for (String id : ids) {
                    brain.router.completion(id).get(120, TimeUnit.SECONDS);
                }
                runs[run] = System.nanoTime() - start;
                if (brain.router.task(last).orElseThrow().status() != TaskStatus.COMPLETED) {
                    throw new IllegalStateException("drain did not complete");
                }
                worker.close();
            }
        }
        long median = Stats.median(runs);
        figure("drain.tasks", String.valueOf(tasks));
        figure("drain.time", Stats.millis(median));
        figure("drain.rate", String.format(Locale.ROOT, "%.0f tasks/s", tasks / (median / 1e9)));
    }

}
