package dev.efferent.router;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.tools.CatalogEntry;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.TaskRunner;
import dev.efferent.core.tools.ToolDescriptors;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.protocol.WorkerTools;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import dev.efferent.tools.spi.Placement;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Routes tool calls. Every call becomes a task in the queue; the router hands queued tasks to workers that
 * have the tool (the brain's own in-process worker included) within their concurrency, tracks each dispatched
 * task to its result, enforces deadlines, watches heartbeats, and fails or requeues the tasks of a worker
 * that is lost. Transport-agnostic: workers are {@link WorkerLink}s.
 * <p>
 * All routing state lives on one thread, the router's loop; public methods hand their work to it.
 */
public final class Router implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Router.class.getName());
    static final ObjectMapper JSON = new ObjectMapper();
    /** The name of the brain's in-process worker; its id is unique to each brain process. */
    public static final String LOCAL_WORKER = "brain";

    private final RouterSettings settings;
    private final TaskQueue queue;
    private final Clock clock;
    private final ProtocolCodec codec;
    private final ExecutorService loop = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("efferent-router").factory());
    /** Runs the router's timers: {@link #timers()} outside tests. */
    private final ScheduledExecutorService timers;
    private final RouterState state;
    /** The router's parts, by concern; each runs on the router's thread. */
    private final Dispatch dispatch;
    private final Admission admission;
    /** Calls waiting for the router's thread, queued together (submitPending). */
    private final List<PendingSubmission> submissions = new ArrayList<>();
    /** At most this many calls per addAll: a burst is queued in several statements rather than one huge one. */
    private static final int MAX_SUBMIT_BATCH = 256;
    private final WorkerProtocol workers;
    private final Maintenance maintenance;

    private Router(RouterSettings settings, TaskQueue queue, ProtocolCodec codec, Clock clock,
                   ScheduledExecutorService timers) {
        this.settings = settings;
        this.timers = timers;
        this.queue = queue;
        this.codec = codec;
        this.clock = clock;
        this.state = new RouterState(new KnownWorkers(queue.records(), codec, JSON));
        this.dispatch = new Dispatch(settings, queue, clock, state, this::schedule);
        this.admission = new Admission(settings, queue, clock, state, dispatch);
        this.workers = new WorkerProtocol(settings, queue, clock, state, this::schedule, dispatch, this::post);
        this.maintenance = new Maintenance(settings, queue, clock, state, this::schedule, dispatch, workers);
    }

    /**
     * Starts a router.
     *
     * @param settings how it behaves
     * @param queue    the task queue
     * @param local    the brain's own tools; their in-process worker runs all of them in single-machine mode,
     *                 and the CLOUD ones with hands enabled
     * @param codec    decodes worker frames
     * @param clock    the clock for heartbeats, deadlines and waits
     */
    public static Router start(RouterSettings settings, TaskQueue queue, Optional<LocalToolExecutor> local,
                               ProtocolCodec codec, Clock clock) {
        return start(settings, queue, local, codec, clock, timers());
    }

    /** {@link #start(RouterSettings, TaskQueue, Optional, ProtocolCodec, Clock)} on timers a test moves with its clock. */
    static Router start(RouterSettings settings, TaskQueue queue, Optional<LocalToolExecutor> local,
                        ProtocolCodec codec, Clock clock, ScheduledExecutorService timers) {
        Router router = new Router(settings, queue, codec, clock, timers);
        // Before anything is posted: the router's thread is not busy yet, as for the in-process worker below.
        router.rememberWorkers();
        local.ifPresent(router::startLocalWorker);
        queue.subscribe(router.dispatch.queueEvents(router::post));
        long tick = Math.max(50, settings.heartbeatInterval().toMillis() / 4);
        router.timers.scheduleWithFixedDelay(() -> router.post(router.maintenance::checkHeartbeats), tick, tick,
                TimeUnit.MILLISECONDS);
        long probe = Math.max(50, settings.linkTimeout().toMillis() / 3);
        router.timers.scheduleWithFixedDelay(() -> router.post(router.maintenance::probeLinks), probe, probe,
                TimeUnit.MILLISECONDS);
        long poll = settings.pollInterval().toMillis();
        router.timers.scheduleWithFixedDelay(() -> router.post(router.maintenance::maintain), poll, poll,
                TimeUnit.MILLISECONDS);
        return router;
    }

    /** The settings this router runs with. */
    public RouterSettings settings() {
        return settings;
    }

    /** A new worker connection, let in with the shared worker secret; feed it the worker's frames. */
    public WorkerConnection connect(WorkerLink link) {
        return connect(link, Optional.empty());
    }

    /**
     * A new worker connection; feed it the worker's frames.
     *
     * @param link   the transport
     * @param paired who the connection's credential says it is (a paired machine's token): it may register as
     *               that worker id and name only; empty for the shared worker secret, which may register as any
     */
    public WorkerConnection connect(WorkerLink link, Optional<PairedIdentity> paired) {
        Connection connection = new Connection(this, link, false, codec, clock, paired);
        connection.registrationTimer = schedule(() -> workers.registrationDue(connection),
                WorkerProtocol.REGISTER_TIMEOUT);
        return connection;
    }

    /**
     * Submits a tool call: it is queued and, if a worker that has the tool has a free slot, dispatched at once.
     *
     * @throws RouterException for an unknown tool or worker, invalid params or values out of range
     */
    public Submission submit(TaskRequest request) {
        CompletableFuture<Submission> answer = new CompletableFuture<>();
        boolean first;
        synchronized (submissions) {
            first = submissions.isEmpty();
            submissions.add(new PendingSubmission(request, answer));
        }
        if (first) {
            // Calls submitted before this flush runs on the router's thread are queued with it, in one commit.
            try {
                loop.execute(this::submitPending);
            } catch (RejectedExecutionException e) {
                refusePending(new QueueException("the brain is shutting down; submit the call again once it runs"));
            }
        }
        return await(answer);
    }

    /** Calls waiting for the router's thread to queue them (for tests). */
    int pendingSubmissions() {
        synchronized (submissions) {
            return submissions.size();
        }
    }

    private record PendingSubmission(TaskRequest request, CompletableFuture<Submission> answer) {
    }

    /** Takes the calls waiting, at most {@code max}; the rest stay for the next flush, which is then posted. */
    private List<PendingSubmission> takeSubmissions(int max) {
        synchronized (submissions) {
            List<PendingSubmission> head = submissions.subList(0, Math.min(max, submissions.size()));
            List<PendingSubmission> batch = List.copyOf(head);
            head.clear();
            if (!submissions.isEmpty()) {
                post(this::submitPending);
            }
            return batch;
        }
    }

    private void submitPending() {
        List<PendingSubmission> batch = takeSubmissions(MAX_SUBMIT_BATCH);
        try {
            admission.submitAll(batch.stream().map(PendingSubmission::request).toList(),
                    batch.stream().map(PendingSubmission::answer).toList());
        } catch (Throwable e) {
            // Every caller not answered yet is told, whatever went wrong (one answered already keeps its answer: its
            // task is queued); the router's thread goes on.
            LOG.log(Level.ERROR, "Router failed while queueing " + batch.size() + " calls; each caller is told", e);
            batch.forEach(p -> p.answer().completeExceptionally(e));
        }
    }

    private void refusePending(RuntimeException why) {
        List<PendingSubmission> left;
        synchronized (submissions) {
            left = List.copyOf(submissions);
            submissions.clear();
        }
        left.forEach(p -> p.answer().completeExceptionally(why));
    }

    /**
     * Approves a task held for approval: it is queued, and runs at once if a worker that has its tool is free, else
     * when one is (a machine that connects later, too).
     *
     * @throws RouterException NOT_FOUND for an unknown id, CONFLICT for a task that is not waiting for approval
     */
    public Submission approve(String taskId) {
        return call(() -> admission.approve(taskId));
    }

    /**
     * Refuses a task held for approval: it is cancelled with {@code reason}, unless it was approved meanwhile.
     *
     * @throws RouterException NOT_FOUND for an unknown id, CONFLICT for a task that is not waiting for approval
     */
    public Task deny(String taskId, String reason) {
        return call(() -> admission.deny(taskId, reason));
    }

    /**
     * Cancels a queued or running task; a running one is told to stop.
     *
     * @throws RouterException NOT_FOUND for an unknown id, CONFLICT for a finished task
     */
    public Task cancel(String taskId, String reason) {
        return call(() -> admission.cancel(taskId, reason));
    }

    /** A future that completes with the task once it has finished; at once if it already has. */
    public CompletableFuture<Task> completion(String taskId) {
        return call(() -> admission.completion(taskId));
    }

    /** Why a queued task is not running yet (no worker online, all busy, a retry later); empty otherwise. */
    public Optional<Waiting> waiting(String taskId) {
        return call(() -> admission.waiting(taskId));
    }

    /** The task, if the queue has it. */
    public Optional<Task> task(String taskId) {
        return queue.get(taskId);
    }

    /**
     * The last progress {@code task} reported while running: as it arrived when it runs on a worker of this brain,
     * else as the queue keeps it (at most a second old); empty when it reported none or is not running.
     */
    public Optional<Progress> progress(Task task) {
        if (task.status() != TaskStatus.RUNNING) {
            return Optional.empty();
        }
        return Optional.ofNullable(state.progress.get(task.id())).or(task::progress);
    }

    /** Tasks in any of {@code statuses} (all when empty), oldest first. */
    public List<Task> tasks(Set<TaskStatus> statuses, int limit) {
        return queue.list(statuses, limit);
    }

    /** Tasks in any of {@code statuses} (all when empty), newest first. */
    public List<Task> newestTasks(Set<TaskStatus> statuses, int limit) {
        return queue.listNewest(statuses, limit);
    }

    /** Every worker the router has seen since it started: online ones first, then by name. */
    public List<WorkerInfo> workers() {
        return call(state::workers);
    }

    /** Every tool the brain knows, with the online workers that have it. */
    public List<ToolInfo> tools() {
        return call(() -> state.tools(settings));
    }

    /**
     * Makes {@code worker} (a name or an id) the one that runs {@code session}'s tasks when it can.
     *
     * @throws RouterException if no worker has that name
     */
    public WorkerInfo setActiveWorker(String session, String worker) {
        return call(() -> state.setActiveWorker(session, worker));
    }

    /** The worker that runs {@code session}'s tasks first, if one was chosen. */
    public Optional<String> activeWorker(String session) {
        return call(() -> state.activeWorker(session));
    }

    /**
     * Closes the connection of worker {@code id}, if it is online here (1008, {@code reason}): its credential was
     * taken back. Its running tasks are handled as for any lost worker.
     *
     * @return whether it was online here
     */
    public boolean disconnect(String id, String reason) {
        return call(() -> {
            WorkerSession s = state.sessions.get(id);
            if (s == null || !s.online || s.local) {
                return false;
            }
            LOG.log(Level.INFO, "Disconnecting worker {0} ({1}): {2}", s.name, s.id, reason);
            // Offline here and now, whether or not the peer ever reads the close: nothing more is sent to it, and
            // what it sends from now on is refused as from an unregistered connection.
            workers.lose(s, reason);
            s.link.close(1008, reason);
            return true;
        });
    }

    /**
     * Tells the router which worker ids and names belong to paired machines ({@code paired} answers from memory,
     * on the router's thread): a connection let in with the shared secret may not register as one of them.
     */
    public void protectPaired(java.util.function.BiPredicate<String, String> paired) {
        workers.paired = paired;
    }

    /** Adds a listener for task and worker events. */
    public void addListener(RouterListener listener) {
        state.listeners.add(listener);
    }

    /** Tasks queued now. */
    public long queuedCount() {
        return queue.countQueued();
    }

    /** Tasks dispatched to workers and not yet finished. */
    public int runningCount() {
        return call(state::runningCount);
    }

    /** Workers online, not counting the brain's in-process worker. */
    public int workersOnline() {
        return call(() -> (int) state.sessions.values().stream().filter(s -> !s.local).count());
    }

    /** Stops the router: its workers are disconnected (1001) and its threads stopped. The queue stays open. */
    @Override
    public void close() {
        try {
            call(() -> {
                state.sessions.values().forEach(s -> s.link.close(1001, "brain shutting down"));
                return null;
            });
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Router did not close its workers cleanly", e);
        }
        workers.close();
        timers.shutdownNow();
        loop.shutdown();
        try {
            if (!loop.awaitTermination(5, TimeUnit.SECONDS)) {
                loop.shutdownNow();
                // Interrupted, the thread stops soon; the acceptances it had not stored are stored below.
                loop.awaitTermination(2, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            loop.shutdownNow();
            Thread.currentThread().interrupt();
        }
        if (loop.isTerminated()) {
            // Acceptances whose flush was still waiting (or was refused by the closing loop) are stored now: a task
            // left claimed while its worker runs it would go back to the queue as never started.
            workers.flushStarts();
        } else {
            LOG.log(Level.WARNING, "Router's thread did not stop in time; tasks accepted in its last moments may "
                    + "stay claimed until their leases run out");
        }
        refusePending(new QueueException("the brain shut down before the call was queued; submit it again once the "
                + "brain runs"));
    }

    void onMessage(Connection connection, Message message) {
        workers.onMessage(connection, message);
    }

    void onClosed(Connection connection, String why) {
        workers.onClosed(connection, why);
    }

    /** Runs {@code work} on the router's thread, logging anything it throws. */
    void post(Runnable work) {
        try {
            loop.execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "Router failed while handling an event; it goes on", e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            LOG.log(Level.DEBUG, "Router is closed; event dropped");
        }
    }

    /** Cancelled timers leave the queue at once: each one holds its connection or task until it would have run. */
    private static ScheduledThreadPoolExecutor timers() {
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("efferent-router-timers").daemon().factory());
        timers.setRemoveOnCancelPolicy(true);
        return timers;
    }

    private Future<?> schedule(Runnable work, Duration delay) {
        return timers.schedule(() -> post(work), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
    }

    private <T> T call(Callable<T> work) {
        return await(loop.submit(work));
    }

    /** What the router's thread answered; what it threw, thrown here. */
    private static <T> T await(Future<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new CompletionException(e.getCause());
        }
    }

    /** The workers seen before this start, offline until they connect: work can be queued for them by name. */
    private void rememberWorkers() {
        List<KnownWorkers.Remembered> remembered = state.known.load();
        for (KnownWorkers.Remembered r : remembered) {
            if (!state.sessions.containsKey(r.info().id())) {
                state.offline.put(r.info().id(), r.info());
                r.tools().forEach(d -> {
                    if (state.knownTools.putIfAbsent(d.name(), d) == null) {
                        state.rememberedTools.add(d.name());
                    }
                });
            }
        }
        if (!remembered.isEmpty()) {
            LOG.log(Level.INFO, "Remembered {0} from before: {1}", WorkerProtocol.count(remembered.size(), "worker"),
                    remembered.stream().map(r -> r.info().name()).toList());
        }
    }

    private void startLocalWorker(LocalToolExecutor executor) {
        state.localTools = Optional.of(executor);
        InProcessWorker link = new InProcessWorker();
        Connection connection = new Connection(this, link, true, codec, clock, Optional.empty());
        // The runner skips its own check only for a tool that is still the copy this router's check used.
        link.attach(TaskRunner.inProcess(executor, settings.localConcurrency(), connection::receive,
                entry -> state.localEntries.get(entry.name()) == entry));
        // Several brains may share one queue: each one's in-process worker needs its own id (lease owner).
        String id = LOCAL_WORKER + "-" + dev.efferent.queue.spi.TaskIds.next();
        // A toolkit here changed its tools (an MCP server restarted): the in-process worker says so, as a worker
        // would. Asked before the tools are read, so no change is missed; what it posts comes after the register.
        executor.catalog().onChange(() -> post(() -> connection.receive(new WorkerTools(localTools(executor)))));
        connection.receive(new WorkerRegister(Message.PROTOCOL_VERSION, id, LOCAL_WORKER, hostname(),
                System.getProperty("os.name", "").toLowerCase(Locale.ROOT) + "-" + System.getProperty("os.arch", ""),
                localTools(executor), settings.localConcurrency()));
    }

    /** The brain's own tools, all known; those it runs itself returned. Runs on the router's thread. */
    private List<ToolDescriptor> localTools(LocalToolExecutor executor) {
        state.localEntries = executor.catalog().entries().stream()
                .collect(java.util.stream.Collectors.toUnmodifiableMap(CatalogEntry::name, e -> e));
        List<ToolDescriptor> all = executor.catalog().entries().stream()
                .map(e -> ToolDescriptors.of(e, settings.placementOf(e.name(), e.spec().placement()))).toList();
        all.forEach(d -> state.knownTools.put(d.name(), d));
        executor.catalog().entries().forEach(e -> state.origins.put(e.name(), e.origin().describeModule()));
        // With hands, the brain runs CLOUD tools, and HYBRID ones while no online worker offers them (Dispatch).
        return settings.handsEnabled()
                ? all.stream().filter(d -> RouterState.placement(d) != Placement.LOCAL).toList() : all;
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    static ObjectNode parseParams(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (JsonProcessingException | ClassCastException e) {
            throw new IllegalStateException("stored params are not a JSON object: " + e.getMessage(), e);
        }
    }
}
