package dev.efferent.bench;

import dev.efferent.queue.ClaimRequest;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.QueueEvents;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.router.Queues;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The queue providers alone, with 8 threads like pgbench's 8 clients, and pgbench itself as the baseline B. */
final class QueueBench {
    static final String URL = System.getProperty("efferent.bench.db.url", "jdbc:postgresql://127.0.0.1:5432/test");
    static final String USER = System.getProperty("efferent.bench.db.user", "postgres");
    private static final int THREADS = 8;
    private static final Set<String> TOOLS = Set.of("t");

    private QueueBench() {
    }

    static void run(boolean smoke) throws Exception {
        double before = smoke ? 1 : pgbench();
        Map<String, Double> figures = new LinkedHashMap<>();
        for (String provider : List.of("memory", "postgres")) {
            int n = smoke ? 200 : 16_000;
            if (!smoke) {
                // The same phases, untimed, in a schema of their own: the JIT compiles the client's hot path here
                // rather than on the 2 cores the timed phases share with PostgreSQL. As large as the timed ones: after
                // an eighth of them, C2's threads still took a sixth of the CPU samples of the timed phases. The
                // latency phase too, shorter: its listener and claimer run code no other phase does.
                phases(provider, n, null, 400);
            }
            phases(provider, n, figures, smoke ? 50 : 2000);
        }
        // B is taken before and after and averaged: this machine's disk drifts over a minute.
        double after = smoke ? 1 : pgbench(true);
        double b = (before + after) / 2;
        if (!smoke) {
            BenchMain.figure("queue.pgbench.B", String.format(Locale.ROOT, "%.0f tps (%.0f before, %.0f after)", b,
                    before, after));
        }
        figures.forEach((name, rate) -> {
            String ratio = name.startsWith("postgres.") && !smoke ? String.format(Locale.ROOT, " (%.2f B)", rate / b) : "";
            BenchMain.figure("queue." + name, String.format(Locale.ROOT, "%.0f/s%s", rate, ratio));
        });
    }

    /**
     * Runs every phase on a fresh schema; records the rates into {@code figures} and prints the latencies, unless
     * {@code figures} is null (a warm-up).
     */
    private static void phases(String provider, int n, Map<String, Double> figures, int latencySamples)
            throws Exception {
        String schema = "efferent_bench_" + System.nanoTime() % 100000;
        Map<String, String> settings = Map.of("url", URL, "user", USER, "schema", schema, "pool-size", "12");
        try (TaskQueue q = open(provider, settings)) {
            double enqueue = parallel(n, i -> q.enqueue(task()));
            double batch = parallel(n * 4, i -> {
                if (i % 64 == 0) {
                    q.enqueueAll(Collections.nCopies(64, task()));
                }
            });
            double unbatched = parallel(n, i -> claimAndComplete(q, 1));
            double batched = parallel(n, i -> {
                if (i % 64 == 0) {
                    claimAndComplete(q, 64);
                }
            });
            if (figures != null) {
                figures.put(provider + ".enqueue", enqueue);
                figures.put(provider + ".batch-enqueue", batch);
                figures.put(provider + ".claim-complete", unbatched);
                figures.put(provider + ".claim64-complete", batched);
            }
            if (latencySamples > 0) {
                // The claimer is another brain on the same queue: a queue does not announce its own changes to itself.
                try (TaskQueue claimer = provider.equals("memory") ? null : open(provider, settings)) {
                    latency(provider, q, claimer == null ? q : claimer, latencySamples, figures != null);
                }
            }
        } finally {
            if (provider.equals("postgres")) {
                sql("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    static TaskQueue open(String provider, Map<String, String> settings) {
        return Queues.providers().build().select(provider).open(key -> Optional.ofNullable(settings.get(key)),
                Clock.systemUTC());
    }

    private static NewTask task() {
        return NewTask.builder("t", "{}").build();
    }

    private static void claimAndComplete(TaskQueue q, int limit) {
        String worker = "w" + Thread.currentThread().threadId();
        List<Task> claimed = q.claim(new ClaimRequest(worker, TOOLS, limit, Duration.ofMinutes(5)));
        if (limit == 1) {
            claimed.forEach(t -> q.complete(t.id(), "{}"));
        } else {
            // Batched: the claims in one statement, their completions flushed in one more.
            Map<String, String> results = new HashMap<>();
            claimed.forEach(t -> results.put(t.id(), "{}"));
            q.completeAll(results);
        }
    }

    /** Rows per second over {@code n} operations shared by 8 threads. */
    private static double parallel(int n, IntConsumer op) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < THREADS; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                    op.accept(i);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * One task every 5 ms added to {@code q}; taken from {@code c}, woken by the queue's notice (PostgreSQL) or polling
     * every millisecond. Also where the time goes: from each enqueue's start to the first notice after it.
     */
    private static void latency(String provider, TaskQueue q, TaskQueue c, int count, boolean report)
            throws Exception {
        Stats stats = new Stats(count);
        long[] started = new long[count];
        AtomicInteger enqueues = new AtomicInteger();
        // Written on the listener's thread, read here once the claimer's queue is closed.
        Stats notices = new Stats(count);
        int[] covered = {0};
        Semaphore wake = new Semaphore(0);
        c.subscribe(new QueueEvents() {
            @Override
            public void workAvailable() {
                long now = System.nanoTime();
                synchronized (notices) {
                    for (int upto = enqueues.get(); covered[0] < upto; covered[0]++) {
                        notices.add(now - started[covered[0]]);
                    }
                }
                wake.release();
            }
        });
        if (c != q) {
            // The claimer's look on subscribing says it listens; the enqueuing brain sees it at its next look at the
            // listeners (at most a second later) and announces from then on.
            if (!wake.tryAcquire(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the claimer did not start listening in 10 s");
            }
            Thread.sleep(1_100);
        }
        // Results are stored off the claimer's thread, as the brain's router does: a slow commit of one does not
        // hold up the next claim.
        try (ExecutorService completions = Executors.newSingleThreadExecutor()) {
            Thread claimer = Thread.ofPlatform().start(() -> {
                int seen = 0;
                while (seen < count) {
                    try {
                        wake.tryAcquire(provider.equals("memory") ? 1 : 50, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (Task t : c.claim(new ClaimRequest("lat", Set.of("lat"), 64, Duration.ofMinutes(5)))) {
                        // The session field carries the enqueue time, so no sample is lost to a race.
                        stats.add(System.nanoTime() - Long.parseLong(t.session().orElseThrow()));
                        seen++;
                        completions.execute(() -> c.complete(t.id(), "{}"));
                    }
                }
            });
            try {
                for (int i = 0; i < count; i++) {
                    long now = System.nanoTime();
                    started[i] = now;
                    enqueues.incrementAndGet();
                    q.enqueue(NewTask.builder("lat", "{}").session(String.valueOf(now)).build());
                    Thread.sleep(5);
                }
            } finally {
                claimer.join(TimeUnit.SECONDS.toMillis(60));
            }
            if (claimer.isAlive()) {
                claimer.interrupt();
                throw new IllegalStateException("the claimer took " + stats.count() + " of " + count
                        + " tasks in 60 s");
            }
        }
        if (!report) {
            return;
        }
        if (c != q) {
            synchronized (notices) {
                BenchMain.figure("queue." + provider + ".insert-to-notice.p50", Stats.millis(notices.percentile(50)));
                BenchMain.figure("queue." + provider + ".insert-to-notice.p99", Stats.millis(notices.percentile(99)));
            }
        }
        BenchMain.figure("queue." + provider + ".insert-to-claim.p50", Stats.millis(stats.percentile(50)));
        BenchMain.figure("queue." + provider + ".insert-to-claim.p99", Stats.millis(stats.percentile(99)));
    }

    /** pgbench, one single-row UPDATE per transaction, 8 clients, prepared: the baseline B. */
    static double pgbench() throws Exception {
        return pgbench(false);
    }

    /**
     * B; with {@code paced}, also the latency of one such commit at a time, 200 a second (the latency phase's pace):
     * the floor under insert → claim, which waits for two commits (the enqueue's and the claim's).
     */
    static double pgbench(boolean paced) throws Exception {
        return pgbench(paced, "", 15);
    }

    /** B, pgbench's session options {@code options} (PGOPTIONS; empty for none), over {@code seconds}. */
    static double pgbench(boolean paced, String options, int seconds) throws Exception {
        sql("DROP DATABASE IF EXISTS efferent_pgbench");
        sql("CREATE DATABASE efferent_pgbench");
        Path script = Files.createTempFile("efferent-pgbench", ".sql");
        try {
            Files.writeString(script, "\\set aid random(1, 1000000)\nUPDATE pgbench_accounts SET abalance = abalance + 1 "
                    + "WHERE aid = :aid;\n");
            exec(List.of("pgbench", "-h", "127.0.0.1", "-U", USER, "-i", "-q", "-s", "10", "efferent_pgbench"), "");
            double tps = tps(script, "efferent_pgbench", options, "-T", String.valueOf(seconds));
            if (paced) {
                commitLatency(script);
            }
            return tps;
        } finally {
            sql("DROP DATABASE IF EXISTS efferent_pgbench");
            Files.delete(script);
        }
    }

    /**
     * Transactions per second of pgbench running {@code script} in {@code database}: 8 clients, prepared statements,
     * {@code options} as its PGOPTIONS (empty for none), {@code run} its length ({@code -T seconds} or {@code -t} each
     * client's count); the variable {@code i} starts at 0.
     */
    static double tps(Path script, String database, String options, String... run) throws Exception {
        List<String> command = new ArrayList<>(List.of("pgbench", "-h", "127.0.0.1", "-U", USER, "-n", "-M",
                "prepared", "-c", String.valueOf(THREADS), "-j", "2", "-D", "i=0"));
        command.addAll(List.of(run));
        command.addAll(List.of("-f", script.toString(), database));
        String out = exec(command, options);
        Matcher m = Pattern.compile("tps = ([0-9.]+)").matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("pgbench printed no tps:\n" + out);
        }
        return Double.parseDouble(m.group(1));
    }

    private static void commitLatency(Path script) throws Exception {
        Path dir = Files.createTempDirectory("efferent-pgbench-log");
        try {
            Process p = new ProcessBuilder("pgbench", "-h", "127.0.0.1", "-U", USER, "-n", "-M", "prepared", "-c", "1",
                    "-R", "200", "-T", "5", "-l", "-f", script.toString(), "efferent_pgbench").directory(dir.toFile())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IllegalStateException("pgbench (paced) failed:\n" + out);
            }
            // Its per-transaction log: client, transaction, time in µs, script, epoch s, µs, schedule lag in µs. With a
            // rate, the time counts from when the transaction was due: the lag is taken off.
            List<Long> micros = new ArrayList<>();
            try (var logs = Files.list(dir)) {
                for (Path log : logs.toList()) {
                    for (String line : Files.readAllLines(log)) {
                        String[] f = line.split(" ");
                        micros.add(Long.parseLong(f[2]) - (f.length > 6 ? Long.parseLong(f[6]) : 0));
                    }
                }
            }
            if (micros.isEmpty()) {
                throw new IllegalStateException("pgbench (paced) logged no transactions:\n" + out);
            }
            Stats stats = new Stats(micros.size());
            micros.forEach(us -> stats.add(us * 1000));
            BenchMain.figure("queue.pgbench.paced-commit.p50", Stats.millis(stats.percentile(50)));
            BenchMain.figure("queue.pgbench.paced-commit.p99", Stats.millis(stats.percentile(99)));
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }

    /** Runs {@code command} with {@code pgOptions} as its PGOPTIONS (empty: none); its output, or why it failed. */
    private static String exec(List<String> command, String pgOptions) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("PGOPTIONS");
        if (!pgOptions.isEmpty()) {
            pb.environment().put("PGOPTIONS", pgOptions);
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
        }
        return out;
    }

    /** The first column of the first row {@code query} returns, as text. */
    static String value(String query) throws Exception {
        Properties props = new Properties();
        props.setProperty("user", USER);
        try (Connection c = DriverManager.getConnection(URL, props); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(query)) {
            if (!rs.next()) {
                throw new IllegalStateException("no row from: " + query);
            }
            return rs.getString(1);
        }
    }

    static void sql(String statement) throws Exception {
        Properties props = new Properties();
        props.setProperty("user", USER);
        try (Connection c = DriverManager.getConnection(URL, props); Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }
}
