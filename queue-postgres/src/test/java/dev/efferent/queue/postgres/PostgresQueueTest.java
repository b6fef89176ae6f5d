package dev.efferent.queue.postgres;

import dev.efferent.queue.ClaimRequest;
import dev.efferent.queue.Enqueued;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueEvents;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskNotFoundException;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import dev.efferent.queue.postgres.socket.ListenerSocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What only the PostgreSQL provider has to show: migrations, notifications, the claim's index, bad settings. */
class PostgresQueueTest {
    private final TestDatabase database = new TestDatabase();
    private final List<TaskQueue> opened = new ArrayList<>();

    private TaskQueue open(Map<String, String> extra) {
        TaskQueue queue = new PostgresQueueProvider().open(database.settings(extra), Clock.systemUTC());
        opened.add(queue);
        return queue;
    }

    @AfterEach
    void cleanUp() {
        opened.forEach(TaskQueue::close);
        database.close();
    }

    @Test
    void twoBrainsStartingAtOnceMigrateOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<TaskQueue>> starts = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                starts.add(pool.submit(() -> open(Map.of())));
            }
            for (Future<TaskQueue> f : starts) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), max(version) FROM " + database.schema + ".schema_migrations")) {
            rs.next();
            int latest = PgSchema.migrations(database.schema).size();
            assertEquals(latest, rs.getInt(1));
            assertEquals(latest, rs.getInt(2));
        }
    }

    @Test
    void progressOutlivesTheBrainThatWroteIt() {
        // What the queue kept beside its tasks (records) is the store's now: StoreContract reads it from a second store.
        TaskQueue first = open(Map.of());
        Task task = first.enqueue(NewTask.builder("run_shell", "{}").build());
        first.claim(new ClaimRequest("w1", Set.of("run_shell"), 1, Duration.ofMinutes(1)));
        first.start(task.id(), "w1", Duration.ofMinutes(1));
        first.progress(task.id(), "w1", new Progress(30, "step 3", Instant.now()));
        first.close();
        TaskQueue second = open(Map.of());
        assertEquals("step 3", second.get(task.id()).orElseThrow().progress().orElseThrow().message());
    }

    @Test
    void anUpgradeKeepsQueuedWorkClaimableOnTheNewIndexes() throws Exception {
        // A database as the previous release left it: migrations 1 to 4, one task queued.
        migratedTo(4);
        database.execute("INSERT INTO " + database.schema + ".tasks (id, tool, params, priority, status, attempt, "
                + "max_attempts, run_at, timeout_ms, created_at, updated_at) VALUES ('old1', 'run_shell', '{}', 5, "
                + "'QUEUED', 0, 1, now(), 1000, now(), now())");
        TaskQueue queue = open(Map.of());
        List<Task> claimed = queue.claim(new ClaimRequest("w1", Set.of("run_shell"), 4, Duration.ofMinutes(1)));
        assertEquals(List.of("old1"), claimed.stream().map(Task::id).toList());
        queue.start("old1", "w1", Duration.ofMinutes(1));
        assertEquals(1, queue.renewLeases("w1", Duration.ofMinutes(2)));
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT indexname FROM pg_indexes WHERE schemaname = '" + database.schema
                     + "' AND tablename = 'tasks' ORDER BY indexname")) {
            List<String> names = new ArrayList<>();
            while (rs.next()) {
                names.add(rs.getString(1));
            }
            assertEquals(List.of("tasks_claim_idx", "tasks_finished_idx", "tasks_idempotency_idx", "tasks_lease_idx",
                    "tasks_list_idx", "tasks_pkey"), names);
        }
    }

    @Test
    void aTaskStoredBeforeSessionsAndOriginsKeepsItsRequesterAsItsSession() throws Exception {
        migratedTo(5);
        database.execute("INSERT INTO " + database.schema + ".tasks (id, tool, params, priority, status, attempt, "
                + "max_attempts, run_at, timeout_ms, requester, created_at, updated_at) VALUES ('old1', 'run_shell', "
                + "'{}', 5, 'QUEUED', 0, 1, now(), 1000, 'telegram:42', now(), now())");

        Task old = open(Map.of()).get("old1").orElseThrow();

        assertEquals(Optional.of("telegram:42"), old.session());
        assertEquals(Optional.empty(), old.origin());
    }

    /** The test's schema as a release that stopped at migration {@code version} left it. */
    private void migratedTo(int version) {
        database.execute("CREATE SCHEMA " + database.schema);
        database.execute("CREATE TABLE " + database.schema + ".schema_migrations (version integer PRIMARY KEY, "
                + "description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
        for (PgSchema.Migration m : PgSchema.migrations(database.schema)) {
            if (m.version() <= version) {
                m.statements().forEach(database::execute);
                database.execute("INSERT INTO " + database.schema + ".schema_migrations (version, description) VALUES ("
                        + m.version() + ", 'old')");
            }
        }
    }

    @Test
    void aStartWaitsForAnotherBrainsMigration() throws Exception {
        try (Connection other = TestDatabase.connect(); Statement s = other.createStatement()) {
            other.setAutoCommit(false);
            s.execute("SELECT pg_advisory_xact_lock(" + PgSchema.LOCK_KEY + ")");
            CompletableFuture<TaskQueue> starting =
                    CompletableFuture.supplyAsync(() -> open(Map.of()));
            Thread.sleep(500);
            assertTrue(!starting.isDone(), "the start waits while another brain migrates");
            other.commit();
            TaskQueue queue = starting.get(30, TimeUnit.SECONDS);
            assertEquals(0, queue.countQueued());
        }
    }

    @Test
    void aDatabaseNewerThanTheCodeIsRefused() {
        open(Map.of()).close();
        database.execute("INSERT INTO " + database.schema + ".schema_migrations (version, description) VALUES (99, 'future')");
        QueueException e = assertThrows(QueueException.class, () -> open(Map.of()));
        assertEquals("the database schema '" + database.schema + "' is at version 99, newer than this Efferent "
                + "understands (" + PgSchema.migrations(database.schema).size() + "); upgrade Efferent, or point queue.postgres.schema at another schema", e.getMessage());
    }

    @Test
    void changesAreAnnouncedToTheOtherBrains() throws Exception {
        TaskQueue a = open(Map.of());
        TaskQueue b = open(Map.of());
        BlockingQueue<String> events = events(b);
        assertEquals("work", events.poll(10, TimeUnit.SECONDS), "a look on subscribing");
        Task task = a.enqueue(NewTask.builder("t", "{}").build());
        assertEquals("work", events.poll(10, TimeUnit.SECONDS));
        a.claim(new ClaimRequest("w1", Set.of("t"), 1, Duration.ofSeconds(30)));
        a.complete(task.id(), "{}");
        assertEquals("done " + task.id(), events.poll(10, TimeUnit.SECONDS));
        Task other = a.enqueue(NewTask.builder("t", "{}").build());
        assertEquals("work", events.poll(10, TimeUnit.SECONDS));
        a.cancel(other.id(), "x");
        List<String> both = List.of(events.poll(10, TimeUnit.SECONDS), events.poll(10, TimeUnit.SECONDS));
        assertTrue(both.containsAll(List.of("cancel " + other.id(), "done " + other.id())), both.toString());
    }

    @Test
    void aBrainDoesNotHearItsOwnEnqueuesAndCompletions() throws Exception {
        TaskQueue a = open(Map.of());
        TaskQueue b = open(Map.of());
        TaskQueue watcher = open(Map.of());
        BlockingQueue<String> heardByA = events(a);
        BlockingQueue<String> heardByWatcher = events(watcher);
        assertEquals("work", heardByA.poll(10, TimeUnit.SECONDS), "a look on subscribing");
        assertEquals("work", heardByWatcher.poll(10, TimeUnit.SECONDS), "a look on subscribing");
        Task own = a.enqueue(NewTask.builder("t", "{}").build());
        a.claim(new ClaimRequest("w1", Set.of("t"), 1, Duration.ofSeconds(30)));
        a.complete(own.id(), "{}");
        // Once a third brain heard both of a's notices, they are behind the one b sends next in every listener.
        assertEquals("work", heardByWatcher.poll(10, TimeUnit.SECONDS));
        assertEquals("done " + own.id(), heardByWatcher.poll(10, TimeUnit.SECONDS));
        Task other = b.enqueue(NewTask.builder("t", "{}").build());
        assertEquals("work", heardByA.poll(10, TimeUnit.SECONDS), "b's enqueue");
        a.claim(new ClaimRequest("w1", Set.of("t"), 1, Duration.ofSeconds(30)));
        b.complete(other.id(), "{}");
        assertEquals("done " + other.id(), heardByA.poll(10, TimeUnit.SECONDS), "b's completion, a's own not heard");
    }

    @Test
    void aBrainAloneSendsNoNoticesAndStartsWhenAnotherListens() throws Exception {
        TaskQueue a = open(Map.of());
        BlockingQueue<String> own = events(a);
        assertEquals("work", own.poll(10, TimeUnit.SECONDS), "a look on subscribing");
        try (Connection spy = TestDatabase.connect()) {
            try (Statement s = spy.createStatement()) {
                s.execute("LISTEN efferent_" + database.schema);
            }
            PGConnection pg = spy.unwrap(PGConnection.class);
            Task task = a.enqueue(NewTask.builder("t", "{}").build());
            a.claim(new ClaimRequest("w1", Set.of("t"), 1, Duration.ofSeconds(30)));
            a.complete(task.id(), "{}");
            PGNotification[] sent = pg.getNotifications(1_500);
            assertTrue(sent == null || sent.length == 0, "no other brain listens, yet notices were sent: "
                    + (sent == null ? "" : Arrays.stream(sent).map(PGNotification::getParameter)
                    .toList()));
            // The other brain's URL names its connections itself: it is still found as a listener.
            TaskQueue b = open(Map.of("url", TestDatabase.URL + (TestDatabase.URL.contains("?") ? "&" : "?")
                    + "ApplicationName=my-brain"));
            BlockingQueue<String> heard = events(b);
            assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "a look on subscribing");
            // a looks again within a second; from then on it announces its changes.
            Thread.sleep(1_100);
            a.enqueue(NewTask.builder("t", "{}").build());
            assertEquals("work", heard.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aNotifierWhoseConnectionWasKilledSendsOnANewOne() throws Exception {
        TaskQueue a = open(Map.of());
        TaskQueue b = open(Map.of());
        BlockingQueue<String> heard = events(b);
        assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "a look on subscribing");
        a.enqueue(NewTask.builder("t", "{}").build());
        assertEquals("work", heard.poll(10, TimeUnit.SECONDS));
        // The notifier's backend dies while idle, as in a restart of the server; the next notice still goes out.
        database.execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = 'efferent-notify'");
        a.enqueue(NewTask.builder("t", "{}").build());
        assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "sent on a new connection");
    }

    private static BlockingQueue<String> events(TaskQueue queue) {
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        queue.subscribe(recorder(events));
        return events;
    }

    /** Events as text: "work", "done <id>", "cancel <id>". */
    private static QueueEvents recorder(BlockingQueue<String> events) {
        return new QueueEvents() {
            @Override
            public void workAvailable() {
                events.add("work");
            }

            @Override
            public void taskFinished(String taskId) {
                events.add("done " + taskId);
            }

            @Override
            public void taskCancelled(String taskId) {
                events.add("cancel " + taskId);
            }
        };
    }

    @Test
    void enqueuesOneAtATimeAndManyAtOnceAreAllAnnouncedToTheBrainThatRunsThem() throws Exception {
        TaskQueue a = open(Map.of());
        TaskQueue b = open(Map.of());
        BlockingQueue<String> heard = events(b);
        assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "a look on subscribing");
        // One at a time, then 200 from eight threads at once (the notifier sends one notice for many): b is woken for
        // each of the first, and after the last of the others, and claims them all.
        int claimed = 0;
        for (int i = 0; i < 20; i++) {
            a.enqueue(NewTask.builder("t", "{}").build());
            assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "enqueue " + i);
            claimed += b.claim(new ClaimRequest("w1", Set.of("t"), 10, Duration.ofSeconds(30))).size();
        }
        assertEquals(20, claimed);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> added = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                added.add(pool.submit(() -> a.enqueue(NewTask.builder("t", "{}").build())));
            }
            // b claims all there is each time it is woken, while the enqueues go on: it gets them all only if the
            // last of them is followed by a notice too.
            claimed = 0;
            while (claimed < 200) {
                assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "claimed " + claimed + " of 200 so far");
                claimed += b.claim(new ClaimRequest("w1", Set.of("t"), 500, Duration.ofSeconds(30))).size();
            }
            assertEquals(200, claimed);
            for (Future<?> f : added) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aListenerWhoseSocketsPgjdbcCannotMakeSaysSoOnceAndListensOnItsUsualOnes() throws Exception {
        PgSettings settings = PgSettings.from(database.settings(Map.of()));
        Logger log = Logger.getLogger(PgListener.class.getName());
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(new SimpleFormatter().formatMessage(r));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(handler);
        try {
            // The listener's own sockets: no warning. Then a factory pgjdbc cannot load (as in a class loader that
            // cannot see it): one warning, notices heard all the same, before and after the connection is lost.
            for (String factory : List.of(ListenerSocketFactory.class.getName(),
                    "dev.efferent.no.SuchSocketFactory")) {
                warnings.clear();
                PgListener listener = new PgListener(settings, "me", factory);
                BlockingQueue<String> heard = new LinkedBlockingQueue<>();
                listener.start(recorder(heard));
                try {
                    assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "a look on listening");
                    notify(settings, "another-brain|cancel:t1");
                    assertEquals("cancel t1", heard.poll(10, TimeUnit.SECONDS), factory);
                    database.execute("SELECT pg_terminate_backend(" + listener.backendPid() + ")");
                    assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "a look on listening again");
                    notify(settings, "another-brain|cancel:t2");
                    assertEquals("cancel t2", heard.poll(10, TimeUnit.SECONDS), factory);
                } finally {
                    listener.close();
                }
                List<String> aboutSockets = warnings.stream().filter(w -> w.contains("own sockets")).toList();
                if (factory.contains("SuchSocketFactory")) {
                    assertEquals(1, aboutSockets.size(), warnings.toString());
                    assertTrue(aboutSockets.getFirst().contains("ClassNotFoundException: " + factory)
                            && aboutSockets.getFirst().contains("one module layer"), aboutSockets.getFirst());
                } else {
                    assertEquals(List.of(), aboutSockets, "the listener's own sockets were made");
                }
            }
        } finally {
            log.removeHandler(handler);
        }
    }

    private static void notify(PgSettings settings, String payload) throws Exception {
        try (Connection c = TestDatabase.connect();
                PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            notify.setString(1, settings.channel());
            notify.setString(2, payload);
            notify.executeQuery().close();
        }
    }

    @Test
    void noticesSentBackToBackAllArriveInOrder() throws Exception {
        TaskQueue b = open(Map.of());
        BlockingQueue<String> heard = events(b);
        assertEquals("work", heard.poll(10, TimeUnit.SECONDS), "a look on subscribing");
        // The listener does not wait for a next notice after each one (ListenerSocketFactory): those still on their
        // way when it looks arrive at its next read, none lost, in the order they were sent.
        PgSettings settings = PgSettings.from(database.settings(Map.of()));
        try (Connection c = TestDatabase.connect();
                PreparedStatement notify = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            for (int i = 0; i < 300; i++) {
                notify.setString(1, settings.channel());
                notify.setString(2, "another-brain" + PgNotifier.ORIGIN + "done:t" + i);
                notify.executeQuery().close();
            }
        }
        for (int i = 0; i < 300; i++) {
            assertEquals("done t" + i, heard.poll(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aBatchOfCompletionsIsAnnouncedOncePerIdAndLongBatchesAreSplit() throws Exception {
        TaskQueue a = open(Map.of());
        TaskQueue b = open(Map.of());
        BlockingQueue<String> finished = new LinkedBlockingQueue<>();
        b.subscribe(new QueueEvents() {
            @Override
            public void taskFinished(String taskId) {
                finished.add(taskId);
            }
        });
        List<NewTask> specs = Collections.nCopies(600, NewTask.builder("t", "{}").build());
        List<String> ids = a.enqueueAll(specs).stream().map(Task::id).toList();
        Map<String, String> results = new LinkedHashMap<>();
        a.claim(new ClaimRequest("w1", Set.of("t"), 600, Duration.ofSeconds(30))).forEach(t -> results.put(t.id(), "{}"));
        assertEquals(600, a.completeAll(results).size());
        Set<String> seen = new HashSet<>();
        while (seen.size() < 600) {
            String id = finished.poll(10, TimeUnit.SECONDS);
            assertTrue(id != null, "announced: " + seen.size() + " of 600");
            assertTrue(seen.add(id), "announced twice: " + id);
        }
        assertEquals(Set.copyOf(ids), seen);
        // 600 ids do not fit one notice (PostgreSQL takes under 8000 bytes): they are split, none cut in two.
        List<String> payloads = PgNotifier.payloads(true, ids);
        assertTrue(payloads.size() > 2 && payloads.getFirst().equals("work"), payloads.toString());
        assertTrue(payloads.stream().allMatch(p -> p.length() < 8000), payloads.toString());
    }

    @Test
    void aBatchLongerThanOneStatementIsAddedWholeAndInOrder() {
        TaskQueue queue = open(Map.of());
        queue.enqueue(NewTask.builder("t", "{}").idempotencyKey("k-0700").build());
        // 2500 tasks: three INSERTs in one transaction; keys in reverse order, one used before, one twice.
        List<NewTask> specs = new ArrayList<>();
        for (int i = 2499; i >= 0; i--) {
            specs.add(NewTask.builder("t", "{\"n\":" + i + "}").idempotencyKey(String.format("k-%04d", i)).build());
        }
        specs.add(NewTask.builder("t", "{\"again\":true}").idempotencyKey("k-1234").build());
        List<Enqueued> added = queue.addAll(specs);
        assertEquals(2501, added.size());
        for (int k = 0; k < 2500; k++) {
            int n = 2499 - k;
            assertEquals(n != 700, added.get(k).created(), "task " + n);
            if (n != 700) {
                assertEquals("{\"n\":" + n + "}", added.get(k).task().params());
            }
        }
        assertEquals(added.get(2499 - 1234).task().id(), added.get(2500).task().id(), "a key used earlier in the batch");
        assertEquals(2500, queue.countQueued());
    }

    @Test
    void batchesOfStartsAndCompletionsOnTheSameRowsNeverFailEachOther() throws Exception {
        TaskQueue queue = open(Map.of());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                List<Task> tasks = queue.enqueueAll(IntStream.range(0, 64)
                        .mapToObj(i -> NewTask.builder("t", "{}").build()).toList());
                queue.claim(new ClaimRequest("w1", Set.of("t"), 64, Duration.ofMinutes(1)));
                // Given in opposite orders: without one locking order the two statements would deadlock.
                Map<String, String> starts = new LinkedHashMap<>();
                tasks.forEach(t -> starts.put(t.id(), "w1"));
                Map<String, String> results = new LinkedHashMap<>();
                tasks.reversed().forEach(t -> results.put(t.id(), "{}"));
                Future<List<Task>> started = pool.submit(() -> queue.startAll(starts, Duration.ofMinutes(1)));
                Future<List<Task>> completed = pool.submit(() -> queue.completeAll(results));
                started.get(30, TimeUnit.SECONDS);
                assertEquals(64, completed.get(30, TimeUnit.SECONDS).size(), "every result stored, started or not");
                for (Task t : tasks) {
                    assertEquals(TaskStatus.COMPLETED, queue.get(t.id()).orElseThrow().status(),
                            "a start that came second did not make a completed task run again");
                }
            }
            assertEquals(0, ((PostgresTaskQueue) queue).deadlockRetries(), "no statement was a deadlock's victim");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Another brain's change of a task, not committed yet, when this brain stores a result or a start for it: the
     * batch waits for it, then goes by the state it left (the rows are found by id and their state checked once
     * locked, decision 30).
     */
    @Test
    void batchesWaitForAChangeInFlightAndGoByItsOutcome() throws Exception {
        TaskQueue queue = open(Map.of());
        Task completing = queue.enqueue(NewTask.builder("t", "{}").build());
        Task starting = queue.enqueue(NewTask.builder("t", "{}").build());
        queue.claim(new ClaimRequest("w1", Set.of("t"), 2, Duration.ofMinutes(1)));
        queue.start(completing.id(), "w1", Duration.ofMinutes(1));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection other = TestDatabase.connect(); Statement s = other.createStatement()) {
            other.setAutoCommit(false);
            // As cancel() leaves them: the lease's owner kept, so only the state check refuses the start.
            s.executeUpdate("UPDATE " + database.schema + ".tasks SET status = 'CANCELLED', error = 'cancelled', "
                    + "lease_expires_at = NULL, finished_at = now(), updated_at = now() WHERE id IN ('"
                    + completing.id() + "', '" + starting.id() + "')");
            Future<List<Task>> completed = pool.submit(() -> queue.completeAll(Map.of(completing.id(), "{}")));
            Future<List<Task>> started = pool.submit(() -> queue.startAll(Map.of(starting.id(), "w1"),
                    Duration.ofMinutes(1)));
            awaitLockWaits(2);
            other.commit();
            assertEquals(List.of(), completed.get(30, TimeUnit.SECONDS), "a cancelled task's late result not stored");
            assertEquals(List.of(), started.get(30, TimeUnit.SECONDS), "a cancelled task not started");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(TaskStatus.CANCELLED, queue.get(completing.id()).orElseThrow().status());
        assertTrue(queue.get(completing.id()).orElseThrow().result().isEmpty());
        assertEquals(TaskStatus.CANCELLED, queue.get(starting.id()).orElseThrow().status());
    }

    /** Waits until {@code n} backends of the queue wait for a row lock. */
    private void awaitLockWaits(int n) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                        + "current_database() AND wait_event_type = 'Lock' AND query LIKE '%" + database.schema
                        + ".tasks%'")) {
                    rs.next();
                    if (rs.getInt(1) >= n) {
                        return;
                    }
                }
                if (System.nanoTime() > until) {
                    throw new AssertionError("the batches never waited for the other transaction's lock");
                }
                Thread.sleep(20);
            }
        }
    }

    /** PostgreSQL keeps a plan for the claim instead of planning each one afresh (decision 30). */
    @Test
    void theClaimsPlanIsKept() throws Exception {
        open(Map.of()).close();
        try (Connection c = TestDatabase.connect()) {
            try (PreparedStatement claim = c.prepareStatement(
                    PostgresTaskQueue.claimStatement(database.schema + ".tasks", 4))) {
                // pgjdbc prepares it on the server at its fifth use; PostgreSQL then tries five plans of its own.
                for (int i = 0; i < 15; i++) {
                    OffsetDateTime now = OffsetDateTime.now();
                    claim.setString(1, "tool1\u001ftool2");
                    claim.setString(2, "\u001f");
                    claim.setObject(3, now);
                    claim.setString(4, "w1");
                    claim.setString(5, "w1");
                    claim.setObject(6, now.plusMinutes(1));
                    claim.setObject(7, now);
                    claim.executeQuery().close();
                }
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT generic_plans, custom_plans "
                    + "FROM pg_prepared_statements WHERE statement LIKE '%SKIP LOCKED%'")) {
                assertTrue(rs.next(), "the claim was prepared on the server");
                assertTrue(rs.getLong(1) > 0, "generic plans: " + rs.getLong(1) + ", custom: " + rs.getLong(2));
            }
        }
    }

    /** The claim's generic plan (what PostgreSQL keeps for it, decision 30): no sort within a tool. */
    @Test
    void theClaimsGenericPlanWalksItsIndex() throws Exception {
        open(Map.of()).close();
        database.execute("INSERT INTO " + database.schema + ".tasks (id, tool, params, priority, status, attempt, "
                + "max_attempts, run_at, timeout_ms, created_at, updated_at) SELECT 'x' || g, 'tool' || (g % 20), '{}', "
                + "1 + g % 10, CASE WHEN g % 3 = 0 THEN 'QUEUED' ELSE 'COMPLETED' END, 0, 1, now(), 1000, now(), now() "
                + "FROM generate_series(1, 20000) g");
        database.execute("ANALYZE " + database.schema + ".tasks");
        String sql = PostgresTaskQueue.claimStatement(database.schema + ".tasks", 8);
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            numbered.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
        }
        StringBuilder plan = new StringBuilder();
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement()) {
            s.execute("SET plan_cache_mode = force_generic_plan");
            s.execute("PREPARE claim AS " + numbered);
            try (ResultSet rs = s.executeQuery("EXPLAIN EXECUTE claim('tool3' || chr(31) || 'tool4', chr(31), now(), "
                    + "'w', 'w', now(), now())")) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        assertEquals(7, n, "the claim's parameters");
        assertTrue(plan.toString().contains("tasks_claim_idx"), plan.toString());
        assertTrue(plan.toString().contains("Function Scan on unnest"), plan.toString());
        // The one sort allowed is the outer one, of at most 8 rows per tool: each tool's rows come in index order.
        assertEquals(1, plan.toString().split("Sort Key", -1).length - 1, "one sort, of the tools' best\n" + plan);
    }

    @Test
    void aRefusedChangeInATransactionLeavesItsConnectionCommittingTheNextCalls() throws Exception {
        // One connection in the pool: the calls after the refusals run on the connection they were refused on.
        TaskQueue queue = open(Map.of("pool-size", "1"));
        assertThrows(TaskNotFoundException.class, () -> queue.fail("no-such-task", "x", false));
        Task done = queue.enqueue(NewTask.builder("t", "{}").build());
        queue.cancel(done.id(), "stop");
        assertThrows(IllegalTransitionException.class, () -> queue.cancel(done.id(), "again"));
        Task added = queue.enqueue(NewTask.builder("t", "{}").build());
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT status FROM " + database.schema + ".tasks WHERE id = '"
                     + added.id() + "'")) {
            assertTrue(rs.next(), "a task added after a refused change is committed, seen from elsewhere");
            assertEquals("QUEUED", rs.getString(1));
        }
    }

    @Test
    void aConnectionKilledUnderTheQueueFailsClearlyAndTheQueueGoesOn() throws Exception {
        TaskQueue queue = open(Map.of("pool-size", "1"));
        Task task = queue.enqueue(NewTask.builder("t", "{}").build());
        // The pool's one connection, found by the schema its last statement named.
        try (Connection c = TestDatabase.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM "
                     + "pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%INSERT INTO "
                     + database.schema + ".tasks%'")) {
            rs.next();
            assertEquals(1, rs.getInt(1), "the pool's one connection, killed");
        }
        // The pool hands out the dead connection unless it checked it first (it does for one idle over half a second):
        // the call on it fails, with the queue's message, and the calls after it get a new connection.
        List<String> failures = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                assertEquals(task.id(), queue.get(task.id()).orElseThrow().id());
                break;
            } catch (QueueException e) {
                failures.add(e.getMessage());
                assertTrue(e.getMessage().startsWith("PostgreSQL could not read a task: "), e.getMessage());
                assertTrue(System.nanoTime() < deadline, "the queue did not come back: " + failures);
                Thread.sleep(100);
            }
        }
    }

    @Test
    void unreachableDatabaseFailsFastWithAClearMessage() {
        long start = System.nanoTime();
        QueueException e = assertThrows(QueueException.class, () -> open(Map.of(
                "url", "jdbc:postgresql://127.0.0.1:1/nothing", "connect-timeout", "PT1S")));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(e.getMessage().contains("is PostgreSQL running and reachable?"), e.getMessage());
        assertTrue(ms < 15_000, "took " + ms + " ms");
    }

    @Test
    void whatToDoInPostgresqlIsSaidForAMissingRoleADatabaseOrTheRightToCreateTheSchema() throws Exception {
        String base = TestDatabase.URL.substring(0, TestDatabase.URL.lastIndexOf('/') + 1);
        String db = TestDatabase.URL.substring(base.length()).replaceFirst("\\?.*", "");
        QueueException role = assertThrows(QueueException.class, () -> open(Map.of("user", "efferent_no_such_role")));
        assertTrue(role.getMessage().endsWith(". Create the role: sudo -u postgres psql -c \"CREATE ROLE "
                + "efferent_no_such_role LOGIN PASSWORD 'change-me'\" (then set EFFERENT_DB_PASSWORD), or set "
                + "EFFERENT_DB_USER to a role that exists"), role.getMessage());
        QueueException database = assertThrows(QueueException.class, () -> open(Map.of("url",
                base + "efferent_no_such_db")));
        assertTrue(database.getMessage().endsWith(". Create the database: sudo -u postgres createdb --owner "
                + TestDatabase.USER + " efferent_no_such_db"), database.getMessage());

        try (Connection c = TestDatabase.connect(); Statement st = c.createStatement()) {
            st.execute("DROP ROLE IF EXISTS efferent_test_weak");
            st.execute("CREATE ROLE efferent_test_weak LOGIN PASSWORD 'weak'");
        }
        try {
            QueueException denied = assertThrows(QueueException.class, () -> open(Map.of("user", "efferent_test_weak",
                    "password", "weak")));
            assertTrue(denied.getMessage().endsWith(". Let efferent_test_weak create the queue's schema: sudo -u "
                    + "postgres psql -c \"GRANT CREATE ON DATABASE " + db + " TO efferent_test_weak\", or make it the "
                    + "database's owner (createdb --owner efferent_test_weak)"), denied.getMessage());
        } finally {
            try (Connection c = TestDatabase.connect(); Statement st = c.createStatement()) {
                st.execute("DROP ROLE IF EXISTS efferent_test_weak");
            }
        }
    }

    @Test
    void badSettingsAreNamed() {
        assertEquals("queue.postgres.schema must be a lower-case SQL identifier (letters, digits, underscores), "
                + "got 'Robert); DROP TABLE'", assertThrows(QueueException.class,
                () -> open(Map.of("schema", "Robert); DROP TABLE"))).getMessage());
        assertTrue(assertThrows(QueueException.class, () -> open(Map.of("url", "mysql://x"))).getMessage()
                .startsWith("queue.postgres.url (EFFERENT_DB_URL) must be a PostgreSQL JDBC URL"));
    }
}
