package dev.efferent.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The durable task queue. Every method is thread-safe; every change is atomic. Methods that change a task
 * return its new snapshot and throw {@link TaskNotFoundException} for an unknown id and
 * {@link IllegalTransitionException} for a change its status does not allow.
 */
public interface TaskQueue extends AutoCloseable {

    /**
     * Adds a task as {@link TaskStatus#QUEUED} ({@link TaskStatus#AWAITING_APPROVAL} when held), and says whether it
     * did: with an idempotency key already used, it
     * returns the task that key created instead (whatever its status), adds nothing, and says so.
     */
    Enqueued add(NewTask task);

    /** {@link #add}, for a caller that needs only the task. */
    default Task enqueue(NewTask task) {
        return add(task).task();
    }

    /**
     * Adds many tasks at once; providers may do it in one transaction. Returns them in order.
     */
    default List<Task> enqueueAll(List<NewTask> tasks) {
        return tasks.stream().map(this::enqueue).toList();
    }

    /**
     * {@link #add} for many tasks at once, each as {@code add} would (an idempotency key already used, in the queue
     * or earlier in {@code tasks}, gives the task it created); providers may do it in one statement. Returns one
     * {@link Enqueued} per task, in order.
     */
    default List<Enqueued> addAll(List<NewTask> tasks) {
        return tasks.stream().map(this::add).toList();
    }

    /**
     * {@link #addAll}, where task {@code i} is claimed as it is added by the worker {@code claimFor.get(i)} names, if
     * any (an empty string names none): {@link TaskStatus#CLAIMED}, that worker its lease owner for {@code lease},
     * attempt 1, as if that worker's {@link #claim} had taken it. For a router that knows the worker has a free slot
     * and no queued task it could take instead: one write where there would be two. A task that could not be claimed
     * now (held, due later, targeted at another worker) is added as {@code addAll} adds it, and so is one whose
     * idempotency key gives an earlier task (that one is returned unchanged). Providers that do not claim on adding
     * (the default) add every task queued: callers check each returned task's status and lease owner.
     *
     * @throws IllegalArgumentException if {@code claimFor} is not as long as {@code tasks}
     * @throws QueueException            if a worker is named and {@code lease} is not positive
     */
    default List<Enqueued> addAll(List<NewTask> tasks, List<String> claimFor, Duration lease) {
        checkClaimFor(tasks, claimFor, lease);
        return addAll(tasks);
    }

    /** The checks of {@link #addAll(List, List, Duration)}'s arguments, for providers that override it. */
    static void checkClaimFor(List<NewTask> tasks, List<String> claimFor, Duration lease) {
        if (claimFor.size() != tasks.size()) {
            throw new IllegalArgumentException("claimFor has " + claimFor.size() + " entries for " + tasks.size()
                    + " tasks");
        }
        if (claimFor.stream().anyMatch(w -> !w.isEmpty()) && (lease.isNegative() || lease.isZero())) {
            throw new QueueException("lease must be positive, got " + lease);
        }
    }

    /**
     * Whether {@code task}, added now, may be claimed on adding by {@code workerId} ({@link #addAll(List, List,
     * Duration)}): not held, due, and targeted at that worker or at no one.
     */
    static boolean claimableOnAdd(NewTask task, String workerId, Instant now) {
        return !task.held() && task.runAt().map(at -> !at.isAfter(now)).orElse(true)
                && task.targetWorker().map(workerId::equals).orElse(true);
    }

    /**
     * Claims up to {@link ClaimRequest#limit()} due tasks the worker can run: queued, run-at reached, tool in
     * its capabilities, targeted at it or at no one; highest priority first, then oldest. Each becomes
     * {@link TaskStatus#CLAIMED} with the worker as lease owner, its attempt counted. No task is claimed twice.
     */
    List<Task> claim(ClaimRequest request);

    /**
     * A person allowed a held task: {@code AWAITING_APPROVAL → QUEUED}; from then on it is claimed like any other
     * (by a worker that connects later, too).
     */
    Task approve(String taskId);

    /**
     * A person refused a held task, or no one answered in time: {@code AWAITING_APPROVAL → CANCELLED} with
     * {@code reason}. Unlike {@link #cancel}, it changes nothing once the task was approved: an answer that comes
     * second loses.
     */
    Task deny(String taskId, String reason);

    /** The worker accepted a claimed task: {@code CLAIMED → RUNNING}, lease renewed. Only the lease owner may. */
    Task start(String taskId, String workerId, Duration lease);

    /**
     * {@link #start} for many tasks at once (task id → the worker that accepted it); providers may do it in one
     * statement. Tasks that cannot be started (no longer claimed, or claimed by another worker) are left out of
     * the returned list and changed in no way.
     *
     * @throws QueueException when the queue could not store the changes (some may have been stored)
     */
    default List<Task> startAll(Map<String, String> accepted, Duration lease) {
        List<Task> started = new ArrayList<>();
        accepted.forEach((id, worker) -> {
            if (!claimedBy(id, worker)) {
                return;
            }
            try {
                started.add(start(id, worker, lease));
            } catch (QueueException e) {
                if (claimedBy(id, worker)) {
                    throw e;
                }
                // Ended, released or claimed by another since it was read: nothing to start.
            }
        });
        return started;
    }

    private boolean claimedBy(String taskId, String workerId) {
        return get(taskId).filter(t -> t.status() == TaskStatus.CLAIMED).flatMap(Task::leaseOwner)
                .filter(workerId::equals).isPresent();
    }

    /** Extends the lease of a claimed or running task held by {@code workerId}. */
    Task renewLease(String taskId, String workerId, Duration lease);

    /**
     * Extends the leases of every task {@code workerId} is running (not merely claimed), e.g. on its heartbeat:
     * a live worker keeps its tasks whichever brain it is connected to. Returns how many.
     */
    int renewLeases(String workerId, Duration lease);

    /**
     * Gives a task back without counting the attempt: a claimed one (the worker was busy or lacked the tool), or
     * a running one its worker hands back as it shuts down: {@code CLAIMED | RUNNING → QUEUED}. Only the worker
     * holding the lease may.
     */
    Task release(String taskId, String workerId);

    /**
     * Keeps the last progress of a task {@code workerId} is running, shown by {@link Task#progress()} until the
     * attempt ends. Returns false, changing nothing, when the task is not running on that worker (it ended, or
     * another holds it).
     */
    boolean progress(String taskId, String workerId, Progress progress);

    /** Stores the result (JSON object text): {@code CLAIMED | RUNNING → COMPLETED}. */
    Task complete(String taskId, String result);

    /**
     * Whether {@link #addAll}, {@link #startAll} and {@link #completeAll} store a batch for about what one task costs
     * (a database: one statement and one commit), so that a router should gather submissions, acceptances and
     * results into batches. False by default.
     */
    default boolean batchesWrites() {
        return false;
    }

    /**
     * Stores many results at once (task id → result JSON text); providers may do it in one statement. Tasks that
     * are no longer claimed or running are left as they are. Returns the tasks it completed.
     */
    default List<Task> completeAll(Map<String, String> results) {
        List<Task> done = new ArrayList<>();
        results.forEach((id, result) -> {
            try {
                done.add(complete(id, result));
            } catch (IllegalTransitionException | TaskNotFoundException e) {
                // Already finished elsewhere (cancelled, timed out): nothing to store.
            }
        });
        return done;
    }

    /**
     * Records a failed attempt. With {@code retry} and attempts left the task goes back to {@code QUEUED}, due
     * after a backoff that doubles with each attempt; otherwise it becomes {@code FAILED}.
     */
    Task fail(String taskId, String error, boolean retry);

    /** Cancels a queued, claimed or running task; a finished task cannot be cancelled. */
    Task cancel(String taskId, String reason);

    /** The task, if the queue has it. */
    Optional<Task> get(String taskId);

    /** Tasks in any of {@code statuses}, oldest first, at most {@code limit}. */
    List<Task> list(Set<TaskStatus> statuses, int limit);

    /** Tasks in any of {@code statuses} (all when empty), newest first, at most {@code limit}. */
    List<Task> listNewest(Set<TaskStatus> statuses, int limit);

    /** How many tasks are queued (due or not). */
    long countQueued();

    /** How many queued tasks the worker could claim now or later: tools in its capabilities, target it or none. */
    long countQueued(String workerId, Set<String> capabilities);

    /**
     * Handles expired leases: each claimed or running task whose lease ran out goes back to {@code QUEUED}
     * (a claimed one without counting the attempt), or to {@code FAILED} when a running one has no attempts
     * left. Returns the changed tasks.
     */
    List<Task> requeueExpiredLeases();

    /** Deletes finished tasks that finished before {@code cutoff}; returns how many. */
    int deleteFinishedBefore(Instant cutoff);

    /**
     * Subscribes to changes made by other processes sharing this queue (other brains on one database): new or
     * requeued work, finished and cancelled tasks. A queue used by one process alone may never call it.
     */
    default void subscribe(QueueEvents events) {
    }

    /** Releases the queue's resources. */
    @Override
    void close();
}
