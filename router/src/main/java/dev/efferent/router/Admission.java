package dev.efferent.router;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.Enqueued;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskNotFoundException;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * Admission: a tool call becomes a task (checked, queued, dispatched at once where a worker is free), and is
 * cancelled or waited for. Runs on the router's thread only.
 */
final class Admission {
    private static final System.Logger LOG = System.getLogger(Admission.class.getName());
    private final RouterSettings settings;
    private final TaskQueue queue;
    private final RouterState state;
    private final Dispatch dispatch;

    Admission(RouterSettings settings, TaskQueue queue, RouterState state, Dispatch dispatch) {
        this.settings = settings;
        this.queue = queue;
        this.state = state;
        this.dispatch = dispatch;
    }

    /**
     * Submits many calls with one {@link TaskQueue#addAll} (one commit over a database), completing each of
     * {@code answers} as a single submission would be answered: its {@link Submission}, or the exception that refused
     * it. The claims that follow take many of them at once, up to each worker's free slots.
     */
    void submitAll(List<TaskRequest> requests, List<CompletableFuture<Submission>> answers) {
        // Calls whose sessions prefer different workers are queued apart, each group dispatched before the next is
        // queued: a claim for one session's worker would otherwise take another's task.
        Map<Optional<String>, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            groups.computeIfAbsent(preference(requests.get(i)), k -> new ArrayList<>()).add(i);
        }
        groups.values().forEach(group -> admit(group.stream().map(requests::get).toList(),
                group.stream().map(answers::get).toList()));
    }

    private Optional<String> preference(TaskRequest request) {
        return request.session().flatMap(state::activeWorker);
    }

    private void admit(List<TaskRequest> requests, List<CompletableFuture<Submission>> answers) {
        List<NewTask> specs = new ArrayList<>();
        List<Optional<ToolDescriptor>> checked = new ArrayList<>();
        List<Integer> admitted = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            try {
                specs.add(spec(requests.get(i)));
                checked.add(checkedAgainst(requests.get(i)));
                admitted.add(i);
            } catch (RuntimeException e) {
                answers.get(i).completeExceptionally(e);
            }
        }
        if (specs.isEmpty()) {
            return;
        }
        // A task a worker with a free slot and no queued work would claim next is claimed as it is queued: one write.
        // Slots go to the batch's tasks by priority, as a claim would take them.
        Map<WorkerSession, Integer> planned = new HashMap<>();
        List<Optional<WorkerSession>> claimers = new ArrayList<>(Collections.nCopies(specs.size(),
                Optional.empty()));
        IntStream.range(0, specs.size()).boxed()
                .sorted(Comparator.comparingInt((Integer k) -> -specs.get(k).priority()))
                .forEach(k -> {
                    NewTask spec = specs.get(k);
                    Optional<WorkerSession> claimer = spec.held() || spec.runAt().isPresent() ? Optional.empty()
                            : dispatch.claimerOnAdd(spec, planned);
                    claimer.ifPresent(s -> planned.merge(s, 1, Integer::sum));
                    claimers.set(k, claimer);
                });
        List<Enqueued> added;
        try {
            added = queue.addAll(specs, claimers.stream().map(c -> c.map(s -> s.id).orElse("")).toList(),
                    settings.lease());
        } catch (RuntimeException e) {
            admitted.forEach(i -> answers.get(i).completeExceptionally(e));
            return;
        }
        if (added.stream().anyMatch(e -> e.created() && e.task().status() == TaskStatus.QUEUED)) {
            state.workMayBeQueued();
        }
        // Before any dispatch below: a worker whose copy of the tool is the one checked is not checked against again.
        for (int k = 0; k < added.size(); k++) {
            Enqueued enqueued = added.get(k);
            if (enqueued.created()) {
                checked.get(k).ifPresent(d -> state.checkedAgainst.put(enqueued.task().id(), d));
            }
        }
        List<Optional<WorkerSession>> claimedFor = new ArrayList<>();
        for (int k = 0; k < admitted.size(); k++) {
            Enqueued enqueued = added.get(k);
            Task task = enqueued.task();
            // Claimed as planned only if the queue did (a provider may add every task queued).
            claimedFor.add(claimers.get(k).filter(s -> enqueued.created() && task.status() == TaskStatus.CLAIMED
                    && task.leaseOwner().equals(Optional.of(s.id))));
        }
        // The tasks claimed on adding are sent first: a claim for the others must not take the slots they hold.
        for (boolean claimedPass : new boolean[]{true, false}) {
            for (int k = 0; k < admitted.size(); k++) {
                if (claimedFor.get(k).isPresent() != claimedPass) {
                    continue;
                }
                int i = admitted.get(k);
                Enqueued enqueued = added.get(k);
                try {
                    answers.get(i).complete(claimedFor.get(k).map(s -> admitted(enqueued.task(), s))
                            .orElseGet(() -> admitted(enqueued)));
                } catch (RuntimeException e) {
                    answers.get(i).completeExceptionally(e);
                }
            }
        }
    }

    /**
     * The tool as {@code request}'s params were checked against, if they were: by the brain's own copy when it has
     * the tool and its in-process worker offers it (admitted just before, {@link #spec}), else by the caller.
     */
    private Optional<ToolDescriptor> checkedAgainst(TaskRequest request) {
        Optional<ToolDescriptor> own = ownCopy(request.tool());
        return own.isPresent() ? own : request.checkedAgainst();
    }

    /** The brain's in-process worker's copy of {@code tool}, if it offers it. */
    private Optional<ToolDescriptor> ownCopy(String tool) {
        return state.sessions.values().stream().filter(s -> s.local).findFirst()
                .flatMap(s -> Optional.ofNullable(s.tools.get(tool)));
    }

    /** The task a call becomes, checked: a RouterException (BAD_REQUEST) says what is wrong with it. */
    private NewTask spec(TaskRequest request) {
        ToolDescriptor tool = state.knownTools.get(request.tool());
        if (tool == null) {
            throw new RouterException(RouterException.Kind.BAD_REQUEST, "unknown tool '" + request.tool()
                    + "'; known tools: " + state.knownTools.keySet().stream().sorted().toList());
        }
        // Checked against the brain's own copy, unless the caller already checked against that very copy.
        boolean checkedByCaller = request.checkedAgainst().isPresent()
                && request.checkedAgainst().equals(ownCopy(tool.name()));
        state.localTools.filter(local -> !checkedByCaller && local.catalog().find(tool.name()).isPresent())
                .flatMap(local -> local.check(tool.name(), request.params()))
                .ifPresent(refusal -> {
                    throw new RouterException(RouterException.Kind.BAD_REQUEST, refusal.message());
                });
        int priority = request.priority().orElse(NewTask.DEFAULT_PRIORITY);
        if (priority < NewTask.MIN_PRIORITY || priority > NewTask.MAX_PRIORITY) {
            throw new RouterException(RouterException.Kind.BAD_REQUEST, "priority must be from 1 to 10, got " + priority);
        }
        Duration timeout = request.timeout().orElse(settings.defaultTimeout());
        if (timeout.isNegative() || timeout.isZero()) {
            throw new RouterException(RouterException.Kind.BAD_REQUEST, "timeoutMs must be positive, got "
                    + timeout.toMillis());
        }
        Optional<String> target = request.worker().map(w -> state.findWorker(w).orElseThrow(() ->
                new RouterException(RouterException.Kind.BAD_REQUEST, "no worker named '" + w + "'; known workers: "
                        + state.workerNames())));
        String params;
        try {
            params = Router.JSON.writeValueAsString(request.params());
        } catch (JsonProcessingException e) {
            throw new RouterException(RouterException.Kind.BAD_REQUEST, "params cannot be serialised: " + e.getMessage());
        }
        NewTask.Builder spec = NewTask.builder(tool.name(), params).priority(priority).timeout(timeout)
                .maxAttempts(tool.readOnly() || tool.idempotent() ? settings.maxAttempts() : 1);
        target.ifPresent(spec::targetWorker);
        request.session().ifPresent(spec::session);
        request.origin().ifPresent(spec::origin);
        request.idempotencyKey().ifPresent(spec::idempotencyKey);
        if (request.held()) {
            spec.held();
        }
        return spec.build();
    }

    /** What became of a call once queued: a duplicate, held for approval, or dispatched if a worker is free. */
    private Submission admitted(Enqueued enqueued) {
        Task task = enqueued.task();
        if (!enqueued.created()) {
            return new Submission(task, Submission.Outcome.DUPLICATE, Optional.empty());
        }
        state.unfinished.put(task.id(), Boolean.TRUE);
        if (task.status() == TaskStatus.AWAITING_APPROVAL) {
            state.listeners.forEach(l -> l.submitted(task, false));
            return new Submission(task, Submission.Outcome.HELD, Optional.empty());
        }
        return dispatchNow(task);
    }

    /** A call queued and claimed for {@code claimedFor} as it was: sent to that worker. */
    private Submission admitted(Task task, WorkerSession claimedFor) {
        state.unfinished.put(task.id(), Boolean.TRUE);
        List<WorkerSession> candidates = dispatch.candidates(task);
        dispatch.dispatchClaimed(claimedFor, task);
        return submitted(task, candidates);
    }

    /** Hands a queued task to a worker that has a free slot, if one is online; says where it went. */
    private Submission dispatchNow(Task task) {
        List<WorkerSession> candidates = dispatch.candidates(task);
        for (WorkerSession s : candidates) {
            if (state.inflight.containsKey(task.id())) {
                // Claimed with one submitted before it (submitAll).
                break;
            }
            // A worker whose claim since this was queued found less than its free slots has nothing more to take.
            if (s.freeSlots() > 0 && s.drainedAt != state.workEpoch) {
                dispatch.pump(s);
            }
        }
        return submitted(task, candidates);
    }

    /** Where a queued task went: running on a worker, or queued because its {@code candidates} are busy or none. */
    private Submission submitted(Task task, List<WorkerSession> candidates) {
        Inflight dispatched = state.inflight.get(task.id());
        boolean offline = candidates.isEmpty();
        Submission submission = dispatched != null
                ? new Submission(dispatched.task, Submission.Outcome.RUNNING, Optional.of(dispatched.session.name))
                : new Submission(task, offline ? Submission.Outcome.QUEUED_OFFLINE : Submission.Outcome.QUEUED_BUSY,
                Optional.empty());
        state.listeners.forEach(l -> l.submitted(submission.task(), offline));
        return submission;
    }

    /** A person allowed a held task: it is queued, and dispatched at once if a worker can take it. */
    Submission approve(String taskId) {
        Task task = queue.get(taskId).orElseThrow(() -> new RouterException(RouterException.Kind.NOT_FOUND,
                "no task with id '" + taskId + "'"));
        if (task.status() != TaskStatus.AWAITING_APPROVAL) {
            throw new RouterException(RouterException.Kind.CONFLICT, "task " + taskId + " is "
                    + task.status().name().toLowerCase(Locale.ROOT)
                    + "; only a task waiting for approval can be approved");
        }
        Task queued;
        try {
            queued = queue.approve(taskId);
        } catch (IllegalTransitionException e) {
            throw new RouterException(RouterException.Kind.CONFLICT, e.getMessage());
        }
        LOG.log(Level.INFO, "Task {0} ({1}) approved", taskId, task.tool());
        state.workMayBeQueued();
        return dispatchNow(queued);
    }

    /** A held task refused, or left unanswered: cancelled, unless it was approved meanwhile (CONFLICT then). */
    Task deny(String taskId, String reason) {
        Task denied;
        try {
            denied = queue.deny(taskId, reason);
        } catch (TaskNotFoundException e) {
            throw new RouterException(RouterException.Kind.NOT_FOUND, "no task with id '" + taskId + "'");
        } catch (IllegalTransitionException e) {
            throw new RouterException(RouterException.Kind.CONFLICT, "task " + taskId + " is not waiting for approval "
                    + "(it is " + e.current().name().toLowerCase(Locale.ROOT) + ")");
        }
        LOG.log(Level.INFO, "Task {0} ({1}) not approved: {2}", taskId, denied.tool(), reason);
        state.finished(denied);
        return denied;
    }

    Task cancel(String taskId, String reason) {
        Task task = queue.get(taskId).orElseThrow(() -> new RouterException(RouterException.Kind.NOT_FOUND,
                "no task with id '" + taskId + "'"));
        if (task.status().isFinished()) {
            throw new RouterException(RouterException.Kind.CONFLICT, "task " + taskId + " is already "
                    + task.status().name().toLowerCase(Locale.ROOT) + "; only queued or running tasks can be cancelled");
        }
        Task cancelled;
        try {
            cancelled = queue.cancel(taskId, reason);
        } catch (IllegalTransitionException e) {
            throw new RouterException(RouterException.Kind.CONFLICT, e.getMessage());
        }
        dispatch.stopOnWorker(taskId, reason);
        LOG.log(Level.INFO, "Task {0} ({1}) cancelled: {2}", taskId, task.tool(), reason);
        state.finished(cancelled);
        return cancelled;
    }
}
