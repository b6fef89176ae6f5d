package dev.efferent.router;

import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Waiting for tasks: until one finishes, or until it waits for a machine that is offline, and why a queued one is not
 * running yet. Runs on the router's thread only.
 */
final class Waits {
    private static final System.Logger LOG = System.getLogger(Waits.class.getName());
    private final TaskQueue queue;
    private final Clock clock;
    private final RouterState state;

    Waits(TaskQueue queue, Clock clock, RouterState state) {
        this.queue = queue;
        this.clock = clock;
        this.state = state;
    }

    /** A future that completes with the task once it has finished; at once if it already has. */
    CompletableFuture<Task> completion(String taskId) {
        Inflight running = state.inflight.get(taskId);
        if (running != null && !running.stopping()) {
            // Dispatched and not ended: whatever ends it completes the waiters (RouterState.finished), so the
            // queue need not be read.
            CompletableFuture<Task> future = new CompletableFuture<>();
            state.waiters.computeIfAbsent(taskId, k -> new ArrayList<>()).add(future);
            return future;
        }
        if (state.unfinished.containsKey(taskId)) {
            // Queued here and not finished yet (the usual wait right after a submission): no need to read it.
            CompletableFuture<Task> future = new CompletableFuture<>();
            state.waiters.computeIfAbsent(taskId, k -> new ArrayList<>()).add(future);
            return future;
        }
        Optional<Task> task = queue.get(taskId);
        if (task.isEmpty()) {
            return CompletableFuture.failedFuture(new RouterException(RouterException.Kind.NOT_FOUND,
                    "no task with id '" + taskId + "'"));
        }
        if (task.get().status().isFinished()) {
            return CompletableFuture.completedFuture(task.get());
        }
        CompletableFuture<Task> future = new CompletableFuture<>();
        state.waiters.computeIfAbsent(taskId, k -> new ArrayList<>()).add(future);
        return future;
    }

    /**
     * Completes once {@code taskId} finishes, or once it waits for a machine that is offline (at once if it does
     * now); a task dispatched is not read from the queue.
     */
    CompletableFuture<Awaited> finishedOrOffline(String taskId) {
        CompletableFuture<Awaited> answer = new CompletableFuture<>();
        completion(taskId).whenComplete((task, e) -> {
            if (e == null) {
                answer.complete(new Awaited.Finished(task));
            } else {
                answer.completeExceptionally(e);
            }
        });
        if (!answer.isDone() && !state.inflight.containsKey(taskId)) {
            offline(taskId).ifPresent(why -> answer.complete(new Awaited.Offline(why)));
        }
        if (!answer.isDone()) {
            state.offlineWatch.computeIfAbsent(taskId, k -> new ArrayList<>()).add(answer);
        }
        return answer;
    }

    /**
     * A machine went offline or lost a tool: whoever waits for a task that now waits for a machine is told. Only the
     * tasks watched and not in flight are read.
     */
    void recheckOffline() {
        for (String id : List.copyOf(state.offlineWatch.keySet())) {
            List<CompletableFuture<Awaited>> watching = state.offlineWatch.get(id);
            watching.removeIf(CompletableFuture::isDone);
            if (watching.isEmpty()) {
                state.offlineWatch.remove(id);
                continue;
            }
            if (state.inflight.containsKey(id)) {
                continue;
            }
            Optional<Waiting> why;
            try {
                why = offline(id);
            } catch (QueueException e) {
                LOG.log(Level.WARNING, "Could not read task {0}, whose machine may have gone: {1}", id, e.getMessage());
                continue;
            }
            if (why.isPresent()) {
                state.offlineWatch.remove(id);
                state.answerLater(() -> watching.forEach(w -> w.complete(new Awaited.Offline(why.get()))));
            }
        }
    }

    private Optional<Waiting> offline(String taskId) {
        return waiting(taskId).filter(w -> w instanceof Waiting.WorkerOffline || w instanceof Waiting.NoWorkerOnline);
    }

    /** Why a queued task is not running yet; empty for a task that is not queued. */
    Optional<Waiting> waiting(String taskId) {
        Optional<Task> found = queue.get(taskId);
        if (found.isPresent() && found.get().status() == TaskStatus.AWAITING_APPROVAL) {
            return Optional.of(new Waiting.ForApproval());
        }
        if (found.isEmpty() || found.get().status() != TaskStatus.QUEUED) {
            return Optional.empty();
        }
        Task task = found.get();
        if (task.runAt().isAfter(clock.instant())) {
            return Optional.of(new Waiting.Retry(task.runAt(), task.error().orElse("a failed attempt")));
        }
        if (task.targetWorker().isPresent()) {
            String id = task.targetWorker().get();
            WorkerSession target = state.sessions.get(id);
            String name = state.workerName(id);
            if (target == null || !target.online) {
                return Optional.of(new Waiting.WorkerOffline(name));
            }
            return Optional.of(target.tools.containsKey(task.tool()) ? new Waiting.WorkerBusy(name)
                    : new Waiting.WorkerLacksTool(name, task.tool()));
        }
        boolean anyone = state.sessions.values().stream().anyMatch(s -> s.online && s.tools.containsKey(task.tool()));
        return Optional.of(anyone ? new Waiting.AllBusy(task.tool()) : new Waiting.NoWorkerOnline(task.tool()));
    }
}
