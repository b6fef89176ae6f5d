package dev.efferent.queue.memory;

import dev.efferent.plugin.Ids;
import dev.efferent.queue.ClaimRequest;
import dev.efferent.queue.Enqueued;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskNotFoundException;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import dev.efferent.queue.spi.RetryBackoff;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The in-memory queue. One lock guards everything; claims read only the indexes of the worker's tools, so a
 * claim costs O(limit × tools × log n), never a scan of the queue.
 */
final class MemoryTaskQueue implements TaskQueue {
    private static final String ANY_WORKER = "";

    private final Clock clock;
    private final RetryBackoff backoff;
    private final Map<String, Entry> tasks = new HashMap<>();
    private final Map<String, String> idsByKey = new HashMap<>();
    /** Due queued tasks by tool, then by target worker ({@code ""} for any), best first. */
    private final Map<String, Map<String, TreeSet<Entry>>> ready = new HashMap<>();
    /** Queued tasks whose run-at is still ahead, soonest first. */
    private final TreeSet<Entry> delayed = new TreeSet<>(Comparator.comparing((Entry e) -> e.task.runAt())
            .thenComparingLong(e -> e.seq));
    /** Claimed and running tasks, by lease expiry. */
    private final TreeSet<Entry> leased = new TreeSet<>(Comparator.comparing((Entry e) -> e.task.leaseExpiresAt().orElseThrow())
            .thenComparingLong(e -> e.seq));
    private long nextSeq;
    private boolean closed;

    MemoryTaskQueue(Clock clock, RetryBackoff backoff) {
        this.clock = clock;
        this.backoff = backoff;
    }

    @Override
    public synchronized Enqueued add(NewTask spec) {
        checkOpen();
        if (spec.idempotencyKey().isPresent()) {
            String existing = idsByKey.get(spec.idempotencyKey().get());
            if (existing != null && tasks.containsKey(existing)) {
                return new Enqueued(tasks.get(existing).task, false);
            }
        }
        Instant now = clock.instant();
        Task task = new Task(Ids.next(), spec.tool(), spec.params(), spec.priority(),
                spec.held() ? TaskStatus.AWAITING_APPROVAL : TaskStatus.QUEUED, 0,
                spec.maxAttempts(), spec.runAt().orElse(now), spec.timeout(), spec.targetWorker(), spec.session(),
                spec.origin(), spec.idempotencyKey(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), now, now,
                Optional.empty(), Optional.empty());
        Entry entry = new Entry(task, nextSeq++);
        tasks.put(task.id(), entry);
        spec.idempotencyKey().ifPresent(key -> idsByKey.put(key, task.id()));
        index(entry, now);
        return new Enqueued(task, true);
    }

    @Override
    public synchronized List<Enqueued> addAll(List<NewTask> specs, List<String> claimFor, Duration lease) {
        TaskQueue.checkClaimFor(specs, claimFor, lease);
        List<Enqueued> added = new ArrayList<>(specs.size());
        for (int i = 0; i < specs.size(); i++) {
            Enqueued e = add(specs.get(i));
            String owner = claimFor.get(i);
            Instant now = clock.instant();
            if (e.created() && !owner.isEmpty() && TaskQueue.claimableOnAdd(specs.get(i), owner, now)) {
                Entry entry = tasks.get(e.task().id());
                Task t = entry.task;
                e = new Enqueued(update(entry, change(t, TaskStatus.CLAIMED, 1).leased(owner, now.plus(lease)).at(now),
                        now), true);
            }
            added.add(e);
        }
        return added;
    }

    @Override
    public synchronized List<Task> claim(ClaimRequest request) {
        checkOpen();
        Instant now = clock.instant();
        promoteDue(now);
        List<TreeSet<Entry>> candidates = new ArrayList<>();
        for (String tool : request.capabilities()) {
            Map<String, TreeSet<Entry>> byTarget = ready.get(tool);
            if (byTarget != null) {
                addIfPresent(candidates, byTarget.get(ANY_WORKER));
                addIfPresent(candidates, byTarget.get(request.workerId()));
            }
        }
        List<Task> claimed = new ArrayList<>();
        while (claimed.size() < request.limit()) {
            TreeSet<Entry> best = null;
            for (TreeSet<Entry> set : candidates) {
                if (!set.isEmpty() && (best == null || Entry.ORDER.compare(set.first(), best.first()) < 0)) {
                    best = set;
                }
            }
            if (best == null) {
                break;
            }
            Entry entry = best.pollFirst();
            Task t = entry.task;
            claimed.add(update(entry, change(t, TaskStatus.CLAIMED, t.attempt() + 1)
                    .leased(request.workerId(), now.plus(request.lease())).at(now), now));
        }
        return claimed;
    }

    @Override
    public synchronized Task start(String taskId, String workerId, Duration lease) {
        Entry entry = find(taskId);
        Task t = entry.task;
        if (t.status() != TaskStatus.CLAIMED) {
            throw new IllegalTransitionException(taskId, t.status(), "start");
        }
        checkOwner(t, workerId, "start");
        Instant now = clock.instant();
        return update(entry, change(t, TaskStatus.RUNNING, t.attempt()).leasedUntil(now.plus(lease)).at(now), now);
    }

    @Override
    public synchronized Task approve(String taskId) {
        Entry entry = find(taskId);
        Task t = entry.task;
        if (t.status() != TaskStatus.AWAITING_APPROVAL) {
            throw new IllegalTransitionException(taskId, t.status(), "approve");
        }
        Instant now = clock.instant();
        return update(entry, change(t, TaskStatus.QUEUED, t.attempt()).unleased().at(now), now);
    }

    @Override
    public synchronized Task deny(String taskId, String reason) {
        Entry entry = find(taskId);
        Task t = entry.task;
        if (t.status() != TaskStatus.AWAITING_APPROVAL) {
            throw new IllegalTransitionException(taskId, t.status(), "deny");
        }
        Instant now = clock.instant();
        return update(entry, change(t, TaskStatus.CANCELLED, t.attempt()).unleased().error(reason).at(now), now);
    }

    @Override
    public synchronized boolean progress(String taskId, String workerId, Progress progress) {
        checkOpen();
        Entry entry = tasks.get(taskId);
        if (entry == null || entry.task.status() != TaskStatus.RUNNING
                || !entry.task.leaseOwner().orElse("").equals(workerId)) {
            return false;
        }
        Task t = entry.task;
        // Not re-indexed: progress changes nothing a claim or a count looks at.
        entry.task = new Task(t.id(), t.tool(), t.params(), t.priority(), t.status(), t.attempt(), t.maxAttempts(),
                t.runAt(), t.timeout(), t.targetWorker(), t.session(), t.origin(), t.idempotencyKey(), t.leaseOwner(),
                t.leaseExpiresAt(), t.result(), t.error(), t.createdAt(), t.updatedAt(), t.finishedAt(),
                Optional.of(progress));
        return true;
    }

    @Override
    public synchronized Task renewLease(String taskId, String workerId, Duration lease) {
        Entry entry = find(taskId);
        Task t = entry.task;
        if (t.status() != TaskStatus.CLAIMED && t.status() != TaskStatus.RUNNING) {
            throw new IllegalTransitionException(taskId, t.status(), "renew the lease of");
        }
        checkOwner(t, workerId, "renew the lease of");
        Instant now = clock.instant();
        return update(entry, change(t, t.status(), t.attempt()).leasedUntil(now.plus(lease)).at(now), now);
    }

    @Override
    public synchronized int renewLeases(String workerId, Duration lease) {
        Instant now = clock.instant();
        int renewed = 0;
        for (Entry entry : List.copyOf(leased)) {
            Task t = entry.task;
            if (t.status() == TaskStatus.RUNNING && t.leaseOwner().orElse("").equals(workerId)) {
                update(entry, change(t, t.status(), t.attempt()).leasedUntil(now.plus(lease)).at(now), now);
                renewed++;
            }
        }
        return renewed;
    }

    @Override
    public synchronized Task release(String taskId, String workerId) {
        Entry entry = find(taskId);
        Task t = entry.task;
        if (t.status() != TaskStatus.CLAIMED && t.status() != TaskStatus.RUNNING) {
            throw new IllegalTransitionException(taskId, t.status(), "release");
        }
        checkOwner(t, workerId, "release");
        Instant now = clock.instant();
        return update(entry, change(t, TaskStatus.QUEUED, t.attempt() - 1).unleased().at(now), now);
    }

    @Override
    public synchronized Task complete(String taskId, String result) {
        Entry entry = find(taskId);
        Task t = entry.task;
        if (t.status() != TaskStatus.CLAIMED && t.status() != TaskStatus.RUNNING) {
            throw new IllegalTransitionException(taskId, t.status(), "complete");
        }
        Instant now = clock.instant();
        return update(entry, change(t, TaskStatus.COMPLETED, t.attempt()).leaseEnded().completed(result).at(now), now);
    }

    @Override
    public synchronized Task fail(String taskId, String error, boolean retry) {
        Entry entry = find(taskId);
        Task t = entry.task;
        if (t.status() != TaskStatus.CLAIMED && t.status() != TaskStatus.RUNNING) {
            throw new IllegalTransitionException(taskId, t.status(), "fail");
        }
        return failAttempt(entry, error, retry, clock.instant());
    }

    @Override
    public synchronized Task cancel(String taskId, String reason) {
        Entry entry = find(taskId);
        Task t = entry.task;
        if (t.status().isFinished()) {
            throw new IllegalTransitionException(taskId, t.status(), "cancel");
        }
        Instant now = clock.instant();
        return update(entry, change(t, TaskStatus.CANCELLED, t.attempt()).leaseEnded().error(reason).at(now), now);
    }

    @Override
    public synchronized Optional<Task> get(String taskId) {
        return Optional.ofNullable(tasks.get(taskId)).map(e -> e.task);
    }

    @Override
    public synchronized List<Task> list(Set<TaskStatus> statuses, int limit) {
        if (limit < 1) {
            throw new QueueException("list limit must be at least 1, got " + limit);
        }
        Set<TaskStatus> wanted = statuses.isEmpty() ? EnumSet.allOf(TaskStatus.class) : EnumSet.copyOf(statuses);
        return tasks.values().stream()
                .filter(e -> wanted.contains(e.task.status()))
                .sorted(Comparator.comparing((Entry e) -> e.task.createdAt()).thenComparingLong(e -> e.seq))
                .limit(limit)
                .map(e -> e.task)
                .toList();
    }

    @Override
    public synchronized List<Task> listNewest(Set<TaskStatus> statuses, int limit) {
        if (limit < 1) {
            throw new QueueException("list limit must be at least 1, got " + limit);
        }
        Set<TaskStatus> wanted = statuses.isEmpty() ? EnumSet.allOf(TaskStatus.class) : EnumSet.copyOf(statuses);
        return tasks.values().stream()
                .filter(e -> wanted.contains(e.task.status()))
                .sorted(Comparator.comparing((Entry e) -> e.task.createdAt()).thenComparingLong(e -> e.seq).reversed())
                .limit(limit)
                .map(e -> e.task)
                .toList();
    }

    @Override
    public synchronized long countQueued() {
        return delayed.size() + ready.values().stream().flatMap(m -> m.values().stream()).mapToLong(Set::size).sum();
    }

    @Override
    public synchronized long countQueued(String workerId, Set<String> capabilities) {
        long count = delayed.stream().filter(e -> claimableBy(e.task, workerId, capabilities)).count();
        for (String tool : capabilities) {
            Map<String, TreeSet<Entry>> byTarget = ready.get(tool);
            if (byTarget != null) {
                count += sizeOf(byTarget.get(ANY_WORKER)) + sizeOf(byTarget.get(workerId));
            }
        }
        return count;
    }

    @Override
    public synchronized List<Task> requeueExpiredLeases() {
        Instant now = clock.instant();
        List<Task> changed = new ArrayList<>();
        while (!leased.isEmpty() && !leased.first().task.leaseExpiresAt().orElseThrow().isAfter(now)) {
            Entry entry = leased.first();
            Task t = entry.task;
            String error = "lease of worker " + t.leaseOwner().orElse("?") + " expired";
            if (t.status() == TaskStatus.CLAIMED) {
                // Never accepted: the attempt did not happen.
                changed.add(update(entry, change(t, TaskStatus.QUEUED, t.attempt() - 1).unleased().error(error).at(now), now));
            } else {
                changed.add(failAttempt(entry, error, true, now));
            }
        }
        return changed;
    }

    @Override
    public synchronized int deleteFinishedBefore(Instant cutoff) {
        int deleted = 0;
        for (Iterator<Entry> it = tasks.values().iterator(); it.hasNext(); ) {
            Task t = it.next().task;
            if (t.status().isFinished() && t.finishedAt().orElseThrow().isBefore(cutoff)) {
                it.remove();
                t.idempotencyKey().ifPresent(idsByKey::remove);
                deleted++;
            }
        }
        return deleted;
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    private Task failAttempt(Entry entry, String error, boolean retry, Instant now) {
        Task t = entry.task;
        if (retry && t.hasAttemptsLeft()) {
            return update(entry, change(t, TaskStatus.QUEUED, t.attempt()).unleased().error(error)
                    .runAt(now.plus(backoff.after(t.attempt()))).at(now), now);
        }
        return update(entry, change(t, TaskStatus.FAILED, t.attempt()).leaseEnded().error(error).at(now), now);
    }

    /** Replaces the entry's task, keeping every index in step with its new status. */
    private Task update(Entry entry, Task next, Instant now) {
        unindex(entry);
        entry.task = next;
        index(entry, now);
        return next;
    }

    private void index(Entry entry, Instant now) {
        Task t = entry.task;
        switch (t.status()) {
            case QUEUED -> {
                if (t.runAt().isAfter(now)) {
                    delayed.add(entry);
                } else {
                    readySet(t).add(entry);
                }
            }
            case CLAIMED, RUNNING -> leased.add(entry);
            default -> {
            }
        }
    }

    private void unindex(Entry entry) {
        Task t = entry.task;
        switch (t.status()) {
            case QUEUED -> {
                if (!delayed.remove(entry)) {
                    readySet(t).remove(entry);
                }
            }
            case CLAIMED, RUNNING -> leased.remove(entry);
            default -> {
            }
        }
    }

    private void promoteDue(Instant now) {
        while (!delayed.isEmpty() && !delayed.first().task.runAt().isAfter(now)) {
            Entry entry = delayed.pollFirst();
            readySet(entry.task).add(entry);
        }
    }

    private TreeSet<Entry> readySet(Task t) {
        return ready.computeIfAbsent(t.tool(), k -> new HashMap<>())
                .computeIfAbsent(t.targetWorker().orElse(ANY_WORKER), k -> new TreeSet<>(Entry.ORDER));
    }

    private Entry find(String taskId) {
        checkOpen();
        Entry entry = tasks.get(taskId);
        if (entry == null) {
            throw new TaskNotFoundException(taskId);
        }
        return entry;
    }

    private void checkOpen() {
        if (closed) {
            throw new QueueException("the memory queue is closed");
        }
    }

    private static void checkOwner(Task t, String workerId, String action) {
        if (!t.leaseOwner().orElse("").equals(workerId)) {
            throw new QueueException("cannot " + action + " task " + t.id() + ": it is held by worker "
                    + t.leaseOwner().orElse("(none)") + ", not " + workerId);
        }
    }

    private static boolean claimableBy(Task t, String workerId, Set<String> capabilities) {
        return capabilities.contains(t.tool()) && t.targetWorker().map(workerId::equals).orElse(true);
    }

    private static long sizeOf(Set<Entry> set) {
        return set == null ? 0 : set.size();
    }

    private static void addIfPresent(List<TreeSet<Entry>> list, TreeSet<Entry> set) {
        if (set != null && !set.isEmpty()) {
            list.add(set);
        }
    }

    private static Change change(Task t, TaskStatus status, int attempt) {
        return new Change(t, status, attempt);
    }

    /** {@code t} moved to a status and attempt, and what else that move changes; the rest stays as it was. */
    private static final class Change {
        private final Task t;
        private final TaskStatus status;
        private final int attempt;
        private Optional<String> leaseOwner;
        private Optional<Instant> leaseExpiresAt;
        private Optional<String> result;
        private Optional<String> error;
        private Instant runAt;

        Change(Task t, TaskStatus status, int attempt) {
            this.t = t;
            this.status = status;
            this.attempt = attempt;
            this.leaseOwner = t.leaseOwner();
            this.leaseExpiresAt = t.leaseExpiresAt();
            this.result = t.result();
            this.error = t.error();
            this.runAt = t.runAt();
        }

        /** Leased to {@code owner} until {@code until}. */
        Change leased(String owner, Instant until) {
            leaseOwner = Optional.of(owner);
            leaseExpiresAt = Optional.of(until);
            return this;
        }

        /** Its lease, to the same owner, runs until {@code until}. */
        Change leasedUntil(Instant until) {
            leaseExpiresAt = Optional.of(until);
            return this;
        }

        /** Leased to no one. */
        Change unleased() {
            leaseOwner = Optional.empty();
            leaseExpiresAt = Optional.empty();
            return this;
        }

        /** Its lease ends; who held it last is kept. */
        Change leaseEnded() {
            leaseExpiresAt = Optional.empty();
            return this;
        }

        Change completed(String value) {
            result = Optional.of(value);
            error = Optional.empty();
            return this;
        }

        Change error(String value) {
            error = Optional.of(value);
            return this;
        }

        Change runAt(Instant at) {
            runAt = at;
            return this;
        }

        /** The task as changed at {@code now}. */
        Task at(Instant now) {
            // Progress belongs to the attempt running now: a lease renewal keeps it, any other change drops it.
            Optional<Progress> progress = status == TaskStatus.RUNNING && t.status() == TaskStatus.RUNNING
                    && attempt == t.attempt() ? t.progress() : Optional.empty();
            return new Task(t.id(), t.tool(), t.params(), t.priority(), status, attempt, t.maxAttempts(), runAt,
                    t.timeout(), t.targetWorker(), t.session(), t.origin(), t.idempotencyKey(), leaseOwner,
                    leaseExpiresAt, result, error, t.createdAt(), now,
                    status.isFinished() ? Optional.of(now) : Optional.empty(), progress);
        }
    }

    /** A task and its insertion number, which breaks ties in every index. */
    private static final class Entry {
        static final Comparator<Entry> ORDER = Comparator.comparingInt((Entry e) -> -e.task.priority())
                .thenComparing(e -> e.task.createdAt())
                .thenComparingLong(e -> e.seq);

        // Not private: read by the comparators above, which PMD takes for no use at all.
        Task task;
        final long seq;

        Entry(Task task, long seq) {
            this.task = task;
            this.seq = seq;
        }
    }
}
