package dev.efferent.queue.postgres;

import dev.efferent.plugin.Ids;
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

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static dev.efferent.queue.postgres.TaskRows.at;

/**
 * The task queue in PostgreSQL. Every operation is one short transaction; none stays open while a tool runs.
 * Claims lock rows with {@code FOR UPDATE SKIP LOCKED}, so concurrent claimers (threads or brains) never take
 * the same task; changes that make work claimable, finish or cancel a task are announced with
 * {@code NOTIFY}: enqueues and completions, the hot path, through {@link PgNotifier} after they commit, the rarer
 * changes in their own transaction.
 */
final class PostgresTaskQueue implements TaskQueue {
    /** Separates tool names in one text parameter; no tool name contains it. */
    private static final String SEP = "\u001f";
    private static final String LEASED = "('CLAIMED', 'RUNNING')";
    private static final String FINISHED = "('COMPLETED', 'FAILED', 'CANCELLED')";
    /** How a refusal names the worker that asked, for a change no worker asks for (approve, cancel). */
    private static final String NO_WORKER = "?";
    /** Joined into a statement in autocommit: its transaction commits without waiting for the disk. */
    private static final String NO_FLUSH = "(SELECT set_config('synchronous_commit', 'off', true)) AS no_flush";
    /** Rows per multi-row INSERT, well under PostgreSQL's 65535 parameters per statement. */
    private static final int MAX_ROWS = 1000;
    /** The columns an added task's row is written with, in the order of the values {@link #insert} binds. */
    private static final String INSERTED = " (id, tool, params, priority, status, attempt, max_attempts, run_at, "
            + "timeout_ms, target_worker, session, origin, idempotency_key, lease_owner, lease_expires_at, created_at, "
            + "updated_at) VALUES ";

    private final PgSettings settings;
    private final Clock clock;
    private final PgDatabase db;
    private final String t;
    private final PgListener listener;
    private final PgNotifier notifier;

    private PostgresTaskQueue(PgSettings settings, Clock clock, PgDatabase db) {
        this.settings = settings;
        this.clock = clock;
        this.db = db;
        this.t = settings.schema() + ".tasks";
        // Marks this queue's own notices (a brain's), which its listener passes over.
        String origin = Ids.next();
        this.notifier = new PgNotifier(settings, origin, this::listenerPid);
        this.listener = new PgListener(settings, origin);
    }

    /** This queue's own listening backend, not another brain's (0 while none). */
    private int listenerPid() {
        PgListener l = listener;
        return l == null ? 0 : l.backendPid();
    }

    static PostgresTaskQueue open(PgSettings settings, Clock clock) {
        PgDatabase db = PgDatabase.connect(settings);
        try {
            PgSchema.migrate(settings);
        } catch (RuntimeException e) {
            db.close();
            QueueException failed = e instanceof QueueException q ? q : PgDatabase.describe("open the queue at "
                    + settings.url(), e);
            String advice = PgDatabase.advice(e, settings);
            throw advice.isEmpty() ? failed : new QueueException(failed.getMessage() + advice, e);
        }
        return new PostgresTaskQueue(settings, clock, db);
    }

    @Override
    public Enqueued add(NewTask spec) {
        if (spec.idempotencyKey().isEmpty()) {
            return add(List.of(spec), List.of(""), Duration.ZERO).getFirst();
        }
        Instant now = clock.instant();
        // One statement in autocommit, without BEGIN and COMMIT round trips; its notice follows (PgNotifier).
        Optional<Task> inserted = db.run("enqueue a task", sql -> sql.one("INSERT INTO " + t
                        + " (id, tool, params, priority, status, attempt, max_attempts, run_at, timeout_ms, target_worker, "
                        + "session, origin, idempotency_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, "
                        + "?, ?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING RETURNING *",
                TaskRows::task, Ids.next(), spec.tool(), spec.params(), spec.priority(), status(spec), spec.maxAttempts(),
                at(spec.runAt().orElse(now)), spec.timeout().toMillis(), spec.targetWorker().orElse(null),
                spec.session().orElse(null), spec.origin().orElse(null), spec.idempotencyKey().orElse(null), at(now),
                at(now)));
        if (inserted.isPresent()) {
            Task task = inserted.get();
            if (task.status() == TaskStatus.QUEUED) {
                notifier.work();
            }
            return new Enqueued(task, true);
        }
        String key = spec.idempotencyKey().orElseThrow();
        return db.run("read a task", sql -> sql.one("SELECT * FROM " + t + " WHERE idempotency_key = ?",
                        TaskRows::task, key))
                .map(task -> new Enqueued(task, false)).orElseThrow(() -> new QueueException(
                        "task with idempotency key '" + key + "' vanished while being enqueued; try again"));
    }

    @Override
    public List<Task> enqueueAll(List<NewTask> specs) {
        return addAll(specs).stream().map(Enqueued::task).toList();
    }

    @Override
    public List<Enqueued> addAll(List<NewTask> specs) {
        return add(specs, Collections.nCopies(specs.size(), ""), Duration.ZERO);
    }

    @Override
    public List<Enqueued> addAll(List<NewTask> specs, List<String> claimFor, Duration lease) {
        TaskQueue.checkClaimFor(specs, claimFor, lease);
        return add(specs, claimFor, lease);
    }

    private List<Enqueued> add(List<NewTask> specs, List<String> claimFor, Duration lease) {
        if (specs.isEmpty()) {
            return List.of();
        }
        List<Enqueued> all;
        if (specs.size() <= MAX_ROWS && specs.stream().allMatch(spec -> spec.idempotencyKey().isEmpty())) {
            // The usual case: one multi-row INSERT in autocommit, one commit for the lot, nothing to read after it.
            all = db.runStatement("enqueue tasks", sql -> insert(sql, specs, claimFor, lease));
        } else {
            // Several statements (chunks, or the reads of tasks whose keys were used): one transaction, so that a
            // failure leaves none of them queued rather than some queued and their callers told otherwise.
            // Chunks cut from the tasks in the order of their keys, as the rows of one INSERT are (see insert).
            List<Integer> order = byKey(specs);
            all = db.inTransaction("enqueue tasks", sql -> {
                Enqueued[] added = new Enqueued[specs.size()];
                for (int from = 0; from < order.size(); from += MAX_ROWS) {
                    List<Integer> chunk = order.subList(from, Math.min(order.size(), from + MAX_ROWS));
                    List<Enqueued> done = insert(sql, chunk.stream().map(specs::get).toList(),
                            chunk.stream().map(claimFor::get).toList(), lease);
                    for (int k = 0; k < chunk.size(); k++) {
                        added[chunk.get(k)] = done.get(k);
                    }
                }
                return List.of(added);
            });
        }
        if (all.stream().anyMatch(e -> e.created() && e.task().status() == TaskStatus.QUEUED)) {
            notifier.work();
        }
        return all;
    }

    /** Positions of {@code specs} in the order of their idempotency keys, those without one last. */
    private static List<Integer> byKey(List<NewTask> specs) {
        return IntStream.range(0, specs.size()).boxed()
                .sorted(Comparator.comparing((Integer i) -> specs.get(i).idempotencyKey().orElse(null),
                        Comparator.nullsLast(Comparator.naturalOrder())))
                .toList();
    }

    /**
     * One multi-row INSERT; a task whose idempotency key was used (before, or earlier in the list) is read back. A task
     * {@code claimFor} names a worker for is inserted claimed by it, when it may be (TaskQueue.claimableOnAdd). Tasks
     * without keys cannot conflict: they are built here from what was written, not read back (see {@link #added}).
     */
    private List<Enqueued> insert(Sql sql, List<NewTask> specs, List<String> claimFor, Duration lease)
            throws SQLException {
        // Instants as PostgreSQL keeps them (microseconds), so the tasks built here are the tasks stored; whether a task
        // is due is decided on the clock's own instant, as the memory queue decides it.
        Instant clockNow = clock.instant();
        Instant now = TaskRows.micros(clockNow);
        List<String> ids = specs.stream().map(spec -> Ids.next()).toList();
        // Rows in the order of their keys: two brains adding the same keys lock them in one order.
        List<Integer> order = byKey(specs);
        List<Object> params = new ArrayList<>(specs.size() * 17);
        StringBuilder values = new StringBuilder();
        Task[] built = new Task[specs.size()];
        for (int i : order) {
            NewTask spec = specs.get(i);
            Optional<String> owner = Optional.of(claimFor.get(i))
                    .filter(w -> !w.isEmpty() && TaskQueue.claimableOnAdd(spec, w, clockNow));
            Instant runAt = TaskRows.micros(spec.runAt().orElse(now));
            // The lease's end only for a task claimed here: the lease is checked only when one is (checkClaimFor).
            Task task = owner.isPresent()
                    ? claimed(ids.get(i), spec, owner.get(), runAt, TaskRows.micros(now.plus(lease)), now)
                    : added(ids.get(i), spec, runAt, now);
            built[i] = task;
            values.append(values.isEmpty() ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
            params.addAll(Arrays.asList(task.id(), task.tool(), task.params(), task.priority(),
                    task.status().name(), task.attempt(), task.maxAttempts(), at(task.runAt()), task.timeout().toMillis(),
                    task.targetWorker().orElse(null), task.session().orElse(null), task.origin().orElse(null),
                    task.idempotencyKey().orElse(null), task.leaseOwner().orElse(null),
                    task.leaseExpiresAt().map(TaskRows::at).orElse(null), at(now), at(now)));
        }
        if (specs.stream().allMatch(spec -> spec.idempotencyKey().isEmpty())) {
            int rows = sql.update("INSERT INTO " + t + INSERTED + values, params.toArray());
            if (rows != specs.size()) {
                throw new QueueException("PostgreSQL added " + rows + " of " + specs.size() + " tasks; none was "
                        + "expected to conflict");
            }
            return Arrays.stream(built).map(task -> new Enqueued(task, true)).toList();
        }
        Map<String, Task> inserted = sql.list("INSERT INTO " + t + INSERTED + values
                        + " ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING RETURNING *",
                TaskRows::task, params.toArray()).stream().collect(Collectors.toMap(Task::id, task -> task));
        List<Enqueued> result = new ArrayList<>(specs.size());
        for (int i = 0; i < specs.size(); i++) {
            Task task = inserted.get(ids.get(i));
            if (task != null) {
                result.add(new Enqueued(task, true));
                continue;
            }
            String key = specs.get(i).idempotencyKey().orElseThrow();
            result.add(sql.one("SELECT * FROM " + t + " WHERE idempotency_key = ?", TaskRows::task, key)
                    .map(used -> new Enqueued(used, false)).orElseThrow(() -> new QueueException(
                            "task with idempotency key '" + key + "' vanished while being enqueued; try again")));
        }
        return result;
    }

    /**
     * The task an INSERT of {@code spec} stores, as a read would give it back. Built rather than read: a statement
     * returning rows with text columns, once pgjdbc has described it (as it does one with a null parameter), costs a
     * lone {@code Sync}, a round trip of its own, before each execution (its guard against filling the socket's
     * buffers), and the rows would only repeat what was sent.
     */
    private static Task added(String id, NewTask spec, Instant runAt, Instant now) {
        return new Task(id, spec.tool(), spec.params(), spec.priority(), TaskStatus.valueOf(status(spec)), 0,
                spec.maxAttempts(), runAt, Duration.ofMillis(spec.timeout().toMillis()), spec.targetWorker(),
                spec.session(), spec.origin(), spec.idempotencyKey(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), now, now, Optional.empty(), Optional.empty());
    }

    /** {@link #added}, for a task inserted claimed by {@code owner}, its lease ending at {@code leaseEnd}. */
    private static Task claimed(String id, NewTask spec, String owner, Instant runAt, Instant leaseEnd, Instant now) {
        return new Task(id, spec.tool(), spec.params(), spec.priority(), TaskStatus.CLAIMED, 1,
                spec.maxAttempts(), runAt, Duration.ofMillis(spec.timeout().toMillis()), spec.targetWorker(),
                spec.session(), spec.origin(), spec.idempotencyKey(), Optional.of(owner), Optional.of(leaseEnd),
                Optional.empty(), Optional.empty(), now, now, Optional.empty(), Optional.empty());
    }

    @Override
    public List<Task> claim(ClaimRequest request) {
        if (request.capabilities().isEmpty()) {
            return List.of();
        }
        Instant now = clock.instant();
        String tools = String.join(SEP, request.capabilities());
        // One ordered index walk per tool (LATERAL), each locking only rows no one else holds, then the best of them.
        // One statement in autocommit: it locks, updates and returns the rows itself. Its commit waits for the disk:
        // a claimed task is dispatched at once, and a claim lost with the database would let it run twice.
        // UPDATE ... RETURNING gives no order, so the claim's order is restored here.
        record Claimed(Task task, long seq) {
        }
        List<Claimed> rows = db.run("claim tasks", sql -> sql.list(claimStatement(t, request.limit()),
                r -> new Claimed(TaskRows.task(r), TaskRows.seq(r)), tools, SEP, at(now), request.workerId(),
                request.workerId(), at(now.plus(request.lease())), at(now)));
        return rows.stream()
                .sorted(Comparator.comparingInt((Claimed c) -> -c.task().priority())
                        .thenComparing(c -> c.task().runAt())
                        .thenComparingLong(Claimed::seq))
                .map(Claimed::task)
                .toList();
    }

    /**
     * The claim of at most {@code limit} tasks of {@code table}; parameters: the tools joined by the separator, the
     * separator, the time, the worker twice, the lease's end, the time. The limit is written in (a whole number the
     * queue checked), the values that would sway the planner are read in sub-selects where it does not see them: with
     * them in sight, it judged each execution's own plan cheaper than the prepared statement's generic one and planned
     * every claim afresh, a sixth of the server's CPU in the queue's unbatched row (decision 30). With the limit known,
     * the generic plan is the one each execution got: one walk of the claim index per tool, no sort within a tool.
     */
    static String claimStatement(String table, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return "WITH c AS (SELECT x.id FROM unnest((SELECT string_to_array(?::text, ?::text))) AS u(tool) "
                + "CROSS JOIN LATERAL (SELECT id, priority, run_at, seq FROM " + table + " WHERE status = 'QUEUED' "
                + "AND tool = u.tool AND run_at <= (SELECT ?::timestamptz) AND (target_worker IS NULL "
                + "OR target_worker = (SELECT ?::text)) ORDER BY priority DESC, run_at, seq LIMIT " + limit
                + " FOR UPDATE SKIP LOCKED) x ORDER BY x.priority DESC, x.run_at, x.seq LIMIT " + limit + ") "
                + "UPDATE " + table + " SET status = 'CLAIMED', attempt = attempt + 1, lease_owner = ?, "
                + "lease_expires_at = ?, updated_at = ? FROM c WHERE " + table + ".id = c.id RETURNING " + table + ".*";
    }

    @Override
    public Task start(String taskId, String workerId, Duration lease) {
        Instant now = clock.instant();
        // The one change of a task's state whose commit does not wait for the disk (decision 27): a start lost with
        // a crash of PostgreSQL leaves the task claimed by the same worker, and the brain that dispatched it still
        // renews its lease and stores its result; only a crash of the brain and the database within the log
        // writer's window (well under a second) would make it look never started.
        Optional<Task> row = db.run("start a task", sql -> sql.one("UPDATE " + t + " SET status = 'RUNNING', "
                        + "progress_percent = NULL, progress_message = NULL, progress_at = NULL, "
                        + "lease_expires_at = ?, updated_at = ? FROM " + NO_FLUSH + " WHERE id = ? AND status = 'CLAIMED' "
                        + "AND lease_owner = ? RETURNING " + t + ".*", TaskRows::task, at(now.plus(lease)), at(now), taskId,
                workerId));
        if (row.isEmpty()) {
            throw db.run("start a task", sql -> refusal(sql, taskId, "start", workerId,
                    Set.of(TaskStatus.CLAIMED)));
        }
        return row.get();
    }

    @Override
    public List<Task> startAll(Map<String, String> accepted, Duration lease) {
        return inChunks(accepted, chunk -> startChunk(chunk, lease));
    }

    private List<Task> startChunk(Map<String, String> accepted, Duration lease) {
        Instant now = clock.instant();
        List<Object> params = new ArrayList<>();
        StringBuilder values = new StringBuilder();
        accepted.forEach((id, worker) -> {
            values.append(values.isEmpty() ? "" : ", ").append("(?, ?)");
            params.add(id);
            params.add(worker);
        });
        params.add(at(now.plus(lease)));
        params.add(at(now));
        // Rows locked in id order, like every statement that changes many (completeAll, renewLeases): two of them
        // locking the same rows in different orders would deadlock. The rows are found by id alone, their state
        // checked once they are locked (in a materialized CTE, which the planner does not look into): every status
        // change leaves a dead row version with an entry in each index on status, thousands on a busy queue until
        // vacuum comes, and given a state to match the planner scanned those entries (its statistics count live rows
        // only) rather than the primary key: 1 ms of a call's 2.5 ms (docs/BENCHMARKS.md, section 8). The commit
        // does not wait for the disk (see start).
        return db.runStatement("start tasks", sql -> sql.list("WITH v(id, owner) AS (VALUES " + values + "), "
                + "l AS MATERIALIZED (SELECT x.id, x.status FROM " + t + " x JOIN v ON x.id = v.id "
                + "AND x.lease_owner = v.owner ORDER BY x.id FOR UPDATE OF x) "
                + "UPDATE " + t + " SET status = 'RUNNING', progress_percent = NULL, progress_message = NULL, "
                + "progress_at = NULL, lease_expires_at = ?, updated_at = ? FROM l, " + NO_FLUSH + " WHERE " + t
                + ".id = l.id AND l.status = 'CLAIMED' RETURNING " + t + ".*", TaskRows::task, params.toArray()));
    }

    private static String status(NewTask spec) {
        return (spec.held() ? TaskStatus.AWAITING_APPROVAL : TaskStatus.QUEUED).name();
    }

    @Override
    public Task approve(String taskId) {
        Instant now = clock.instant();
        return change(taskId, "approve", Set.of(TaskStatus.AWAITING_APPROVAL), NO_WORKER,
                sql -> sql.one("UPDATE " + t + " SET status = 'QUEUED', updated_at = ? WHERE id = ? "
                        + "AND status = 'AWAITING_APPROVAL' RETURNING *", TaskRows::task, at(now), taskId), "work");
    }

    @Override
    public Task deny(String taskId, String reason) {
        Instant now = clock.instant();
        return change(taskId, "deny", Set.of(TaskStatus.AWAITING_APPROVAL), NO_WORKER,
                sql -> sql.one("UPDATE " + t + " SET status = 'CANCELLED', error = ?, finished_at = ?, updated_at = ? "
                        + "WHERE id = ? AND status = 'AWAITING_APPROVAL' RETURNING *", TaskRows::task, reason, at(now),
                        at(now), taskId),
                "done:" + taskId);
    }

    @Override
    public boolean progress(String taskId, String workerId, Progress progress) {
        // updated_at is left alone: progress is not a change of the task's state.
        return db.run("keep the progress of a task", sql -> sql.update("UPDATE " + t + " SET progress_percent = ?, "
                + "progress_message = ?, progress_at = ? WHERE id = ? AND status = 'RUNNING' AND lease_owner = ?",
                progress.percent(), progress.message(), at(progress.at()), taskId, workerId)) == 1;
    }

    @Override
    public Task renewLease(String taskId, String workerId, Duration lease) {
        Instant now = clock.instant();
        return change(taskId, "renew the lease of", Set.of(TaskStatus.CLAIMED, TaskStatus.RUNNING),
                workerId, sql -> sql.one("UPDATE " + t + " SET lease_expires_at = ?, updated_at = ? "
                                + "WHERE id = ? AND status IN " + LEASED + " AND lease_owner = ? RETURNING *",
                        TaskRows::task, at(now.plus(lease)), at(now), taskId, workerId), null);
    }

    @Override
    public int renewLeases(String workerId, Duration lease) {
        Instant now = clock.instant();
        return db.runStatement("renew leases", sql -> sql.update("WITH l AS (SELECT id FROM " + t + " WHERE lease_owner = ? "
                + "AND status = 'RUNNING' ORDER BY id FOR UPDATE) UPDATE " + t + " SET lease_expires_at = ?, updated_at = ? "
                + "FROM l WHERE " + t + ".id = l.id AND " + t + ".status = 'RUNNING'", workerId, at(now.plus(lease)), at(now)));
    }

    @Override
    public Task release(String taskId, String workerId) {
        Instant now = clock.instant();
        return change(taskId, "release", Set.of(TaskStatus.CLAIMED, TaskStatus.RUNNING), workerId, sql -> sql.one(
                "UPDATE " + t + " SET status = 'QUEUED', attempt = attempt - 1, lease_owner = NULL, "
                        + "lease_expires_at = NULL, updated_at = ? WHERE id = ? AND status IN ('CLAIMED', 'RUNNING') "
                        + "AND lease_owner = ? RETURNING *", TaskRows::task, at(now), taskId, workerId), "work");
    }

    @Override
    public Task complete(String taskId, String result) {
        Instant now = clock.instant();
        Optional<Task> row = db.run("complete a task", sql -> sql.one("UPDATE " + t
                        + " SET status = 'COMPLETED', result = ?, error = NULL, lease_expires_at = NULL, finished_at = ?, updated_at = ? "
                        + "WHERE id = ? AND status IN " + LEASED + " RETURNING *", TaskRows::task, result, at(now), at(now),
                taskId));
        if (row.isEmpty()) {
            throw db.run("complete a task", sql -> refusal(sql, taskId, "complete", NO_WORKER,
                    Set.of(TaskStatus.CLAIMED, TaskStatus.RUNNING)));
        }
        notifier.finished(List.of(taskId));
        return row.get();
    }

    @Override
    public List<Task> completeAll(Map<String, String> results) {
        return inChunks(results, this::completeChunk);
    }

    /** {@code work} on at most {@value #MAX_ROWS} entries at a time (PostgreSQL takes 65535 parameters a statement). */
    private static List<Task> inChunks(Map<String, String> all, Function<Map<String, String>, List<Task>> work) {
        List<Task> done = new ArrayList<>();
        Map<String, String> chunk = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : all.entrySet()) {
            chunk.put(e.getKey(), e.getValue());
            if (chunk.size() == MAX_ROWS) {
                done.addAll(work.apply(chunk));
                chunk = new LinkedHashMap<>();
            }
        }
        if (!chunk.isEmpty()) {
            done.addAll(work.apply(chunk));
        }
        return done;
    }

    private List<Task> completeChunk(Map<String, String> results) {
        Instant now = clock.instant();
        List<Object> params = new ArrayList<>();
        StringBuilder values = new StringBuilder();
        results.forEach((id, result) -> {
            values.append(values.isEmpty() ? "" : ", ").append("(?, ?)");
            params.add(id);
            params.add(result);
        });
        params.add(at(now));
        params.add(at(now));
        // One statement for the whole batch: one commit instead of one per task. Rows locked in id order and found
        // by id alone (see startAll).
        List<Task> done = db.runStatement("complete tasks", sql -> sql.list("WITH v(id, result) AS (VALUES " + values + "), "
                + "l AS MATERIALIZED (SELECT x.id, x.status FROM " + t + " x JOIN v ON x.id = v.id "
                + "ORDER BY x.id FOR UPDATE OF x) "
                + "UPDATE " + t + " SET status = 'COMPLETED', result = v.result, error = NULL, lease_expires_at = NULL, "
                + "finished_at = ?, updated_at = ? FROM l JOIN v ON v.id = l.id WHERE " + t + ".id = l.id AND "
                + "l.status IN " + LEASED + " RETURNING " + t + ".*", TaskRows::task, params.toArray()));
        notifier.finished(done.stream().map(Task::id).toList());
        return done;
    }

    @Override
    public boolean batchesWrites() {
        return true;
    }

    @Override
    public Task fail(String taskId, String error, boolean retry) {
        Instant now = clock.instant();
        return db.inTransaction("fail a task", sql -> {
            Task current = lockForChange(sql, taskId, "fail", Set.of(TaskStatus.CLAIMED, TaskStatus.RUNNING));
            return failAttempt(sql, current, error, retry, now);
        });
    }

    @Override
    public Task cancel(String taskId, String reason) {
        Instant now = clock.instant();
        return db.inTransaction("cancel a task", sql -> {
            Optional<Task> row = sql.one("UPDATE " + t + " SET status = 'CANCELLED', error = ?, lease_expires_at = NULL, "
                            + "finished_at = ?, updated_at = ? WHERE id = ? AND status IN ('AWAITING_APPROVAL', 'QUEUED', "
                            + "'CLAIMED', 'RUNNING') RETURNING *", TaskRows::task, reason, at(now), at(now), taskId);
            if (row.isEmpty()) {
                throw refusal(sql, taskId, "cancel", NO_WORKER, EnumSet.of(TaskStatus.AWAITING_APPROVAL,
                        TaskStatus.QUEUED, TaskStatus.CLAIMED, TaskStatus.RUNNING));
            }
            notify(sql, "cancel:" + taskId);
            notify(sql, "done:" + taskId);
            return row.get();
        });
    }

    @Override
    public Optional<Task> get(String taskId) {
        return db.run("read a task", sql -> sql.one("SELECT * FROM " + t + " WHERE id = ?", TaskRows::task, taskId));
    }

    @Override
    public List<Task> list(Set<TaskStatus> statuses, int limit) {
        if (limit < 1) {
            throw new QueueException("list limit must be at least 1, got " + limit);
        }
        String where = statuses.isEmpty() ? "" : " WHERE status IN (" + statuses.stream()
                .map(s -> "'" + s.name() + "'").collect(Collectors.joining(", ")) + ")";
        return db.run("list tasks", sql -> sql.list("SELECT * FROM " + t + where
                + " ORDER BY created_at, seq LIMIT ?", TaskRows::task, limit));
    }

    @Override
    public List<Task> listNewest(Set<TaskStatus> statuses, int limit) {
        if (limit < 1) {
            throw new QueueException("list limit must be at least 1, got " + limit);
        }
        String where = statuses.isEmpty() ? "" : " WHERE status IN (" + statuses.stream()
                .map(s -> "'" + s.name() + "'").collect(Collectors.joining(", ")) + ")";
        return db.run("list tasks", sql -> sql.list("SELECT * FROM " + t + where
                + " ORDER BY created_at DESC, seq DESC LIMIT ?", TaskRows::task, limit));
    }

    @Override
    public long countQueued() {
        return db.run("count queued tasks", sql -> sql.one("SELECT count(*) FROM " + t
                + " WHERE status = 'QUEUED'", row -> row.getLong(1))).orElseThrow();
    }

    @Override
    public long countQueued(String workerId, Set<String> capabilities) {
        if (capabilities.isEmpty()) {
            return 0;
        }
        return db.run("count queued tasks", sql -> sql.one("SELECT count(*) FROM " + t
                        + " WHERE status = 'QUEUED' AND tool = ANY (string_to_array(?, ?)) "
                        + "AND (target_worker IS NULL OR target_worker = ?)", row -> row.getLong(1),
                String.join(SEP, capabilities), SEP, workerId)).orElseThrow();
    }

    @Override
    public List<Task> requeueExpiredLeases() {
        Instant now = clock.instant();
        return db.inTransaction("requeue expired leases", sql -> {
            List<Task> expired = sql.list("SELECT * FROM " + t + " WHERE status IN " + LEASED
                    + " AND lease_expires_at <= ? ORDER BY lease_expires_at LIMIT 500 FOR UPDATE SKIP LOCKED",
                    TaskRows::task, at(now));
            List<Task> changed = new ArrayList<>();
            for (Task task : expired) {
                String error = "lease of worker " + task.leaseOwner().orElse("?") + " expired";
                if (task.status() == TaskStatus.CLAIMED) {
                    // Never accepted: the attempt did not happen.
                    changed.add(sql.one("UPDATE " + t + " SET status = 'QUEUED', attempt = attempt - 1, "
                            + "lease_owner = NULL, lease_expires_at = NULL, error = ?, updated_at = ? WHERE id = ? "
                            + "RETURNING *", TaskRows::task, error, at(now), task.id()).orElseThrow());
                } else {
                    changed.add(failAttempt(sql, task, error, true, now));
                }
            }
            if (!changed.isEmpty()) {
                notify(sql, "work");
            }
            return changed;
        });
    }

    @Override
    public int deleteFinishedBefore(Instant cutoff) {
        return db.run("delete finished tasks", sql -> sql.update("DELETE FROM " + t + " WHERE status IN "
                + FINISHED + " AND finished_at < ?", at(cutoff)));
    }

    /** How many statements were run again after a deadlock (for tests). */
    long deadlockRetries() {
        return db.deadlockRetries();
    }

    @Override
    public void subscribe(QueueEvents events) {
        listener.start(events);
    }

    @Override
    public void close() {
        listener.close();
        notifier.close();
        db.close();
    }

    private Task failAttempt(Sql sql, Task task, String error, boolean retry, Instant now) throws SQLException {
        if (retry && task.hasAttemptsLeft()) {
            Task requeued = sql.one("UPDATE " + t + " SET status = 'QUEUED', lease_owner = NULL, "
                            + "lease_expires_at = NULL, error = ?, run_at = ?, updated_at = ? WHERE id = ? RETURNING *",
                    TaskRows::task, error, at(now.plus(settings.backoff().after(task.attempt()))), at(now), task.id())
                    .orElseThrow();
            notify(sql, "work");
            return requeued;
        }
        Task failed = sql.one("UPDATE " + t + " SET status = 'FAILED', lease_expires_at = NULL, error = ?, "
                + "finished_at = ?, updated_at = ? WHERE id = ? RETURNING *", TaskRows::task, error, at(now), at(now),
                task.id()).orElseThrow();
        notify(sql, "done:" + task.id());
        return failed;
    }

    /** Locks the task's row, checking that it may make the change. */
    private Task lockForChange(Sql sql, String taskId, String action, Set<TaskStatus> allowed)
            throws SQLException {
        Task task = sql.one("SELECT * FROM " + t + " WHERE id = ? FOR UPDATE", TaskRows::task, taskId)
                .orElseThrow(() -> new TaskNotFoundException(taskId));
        if (!allowed.contains(task.status())) {
            throw new IllegalTransitionException(taskId, task.status(), action);
        }
        return task;
    }

    /**
     * Runs a guarded single-row UPDATE; when it matches nothing, explains why (unknown, wrong status, owner).
     * {@code owner} is the worker that asked, {@link #NO_WORKER} when none did.
     */
    private Task change(String taskId, String action, Set<TaskStatus> allowed, String owner,
                        Update update, String notice) {
        return db.inTransaction(action + " a task", sql -> {
            Optional<Task> row = update.on(sql);
            if (row.isEmpty()) {
                throw refusal(sql, taskId, action, owner, allowed);
            }
            if (notice != null) {
                notify(sql, notice);
            }
            return row.get();
        });
    }

    /** A guarded single-row UPDATE: the row it changed, none if it matched none. */
    private interface Update {
        Optional<Task> on(Sql sql) throws SQLException;
    }

    private QueueException refusal(Sql sql, String taskId, String action, String owner,
                                   Set<TaskStatus> allowed) throws SQLException {
        Optional<Task> task = sql.one("SELECT * FROM " + t + " WHERE id = ?", TaskRows::task, taskId);
        if (task.isEmpty()) {
            return new TaskNotFoundException(taskId);
        }
        Task current = task.get();
        if (!allowed.contains(current.status())) {
            return new IllegalTransitionException(taskId, current.status(), action);
        }
        return new QueueException("cannot " + action + " task " + taskId + ": it is held by worker "
                + current.leaseOwner().orElse("(none)") + ", not " + owner);
    }

    private void notify(Sql sql, String payload) throws SQLException {
        sql.list("SELECT pg_notify(?, ?)", row -> null, settings.channel(), payload);
    }
}
