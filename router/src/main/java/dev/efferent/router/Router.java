package dev.efferent.router;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.BiPredicate;

/**
 * Routes tool calls. Every call becomes a task in the queue; the router hands queued tasks to workers that
 * have the tool (the brain's own in-process worker included) within their concurrency, tracks each dispatched
 * task to its result, enforces deadlines, watches heartbeats, and fails or requeues the tasks of a worker
 * that is lost. Transport-agnostic: workers are {@link WorkerLink}s.
 * <p>
 * All routing state lives on one thread, the router's loop; calls that change it hand their work to it. What it
 * knows of workers and tools is published by the loop ({@link RouterView}, decision 41) and read from there.
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
    private final RouterState state;
    private final RouterLoop loop;
    /** Set first thing in close(): the brain is stopping, whatever still answers. */
    private volatile boolean stopping;
    /** What readers see: the state as the last turn of the loop left it. */
    private volatile RouterView view = RouterView.EMPTY;
    /** The router's parts, by concern; each runs on the router's thread. */
    private final Dispatch dispatch;
    private final Admission admission;
    private final Waits waits;
    private final Submissions submissions;
    private final TaskReports reports;
    private final WorkerRegistration registration;
    private final WorkerProtocol workers;
    private final Maintenance maintenance;

    private Router(RouterSettings settings, TaskQueue queue, Store store, ProtocolCodec codec, Clock clock,
                   ScheduledExecutorService timers) {
        this.settings = settings;
        this.queue = queue;
        this.codec = codec;
        this.clock = clock;
        this.loop = new RouterLoop(this::publish, this::workersOrToolsChanged, timers);
        this.state = new RouterState(new KnownWorkers(store, codec, JSON), loop::later);
        this.dispatch = new Dispatch(settings, queue, clock, state, loop::schedule);
        this.admission = new Admission(settings, queue, state, dispatch);
        this.waits = new Waits(queue, clock, state);
        this.submissions = new Submissions(admission, loop::post, loop::later);
        this.reports = new TaskReports(settings, queue, clock, state, loop::schedule, dispatch, loop::post);
        // A machine gone: whoever waits for a task that needs it is told, once this turn is over (a worker taking over
        // its own id is back by then).
        this.registration = new WorkerRegistration(settings, queue, clock, state, loop::schedule, dispatch, reports,
                () -> loop.post(waits::recheckOffline));
        this.workers = new WorkerProtocol(registration, reports);
        this.maintenance = new Maintenance(settings, queue, clock, state, loop::schedule, dispatch, registration,
                loop::publishNow, waits::recheckOffline);
    }

    /**
     * Starts a router without local tools: every tool call goes to a worker.
     *
     * @param settings how it behaves
     * @param queue    the task queue
     * @param store    where the workers seen are remembered (namespace {@code router.workers})
     * @param codec    decodes worker frames
     * @param clock    the clock for heartbeats, deadlines and waits
     */
    public static Router start(RouterSettings settings, TaskQueue queue, Store store, ProtocolCodec codec,
                               Clock clock) {
        return start(settings, queue, store, codec, clock, RouterLoop.timers());
    }

    /**
     * Starts a router.
     *
     * @param settings how it behaves
     * @param queue    the task queue
     * @param store    where the workers seen are remembered (namespace {@code router.workers})
     * @param local    the brain's own tools; their in-process worker runs all of them in single-machine mode,
     *                 and the CLOUD ones with hands enabled
     * @param codec    decodes worker frames
     * @param clock    the clock for heartbeats, deadlines and waits
     */
    public static Router start(RouterSettings settings, TaskQueue queue, Store store,
                               LocalToolExecutor local, ProtocolCodec codec, Clock clock) {
        return started(new Router(settings, queue, store, codec, clock, RouterLoop.timers()),
                router -> router.startLocalWorker(local));
    }

    /** {@link #start(RouterSettings, TaskQueue, Store, ProtocolCodec, Clock)} on timers a test moves. */
    static Router start(RouterSettings settings, TaskQueue queue, Store store, ProtocolCodec codec, Clock clock,
                        ScheduledExecutorService timers) {
        return started(new Router(settings, queue, store, codec, clock, timers), router -> {
        });
    }

    private static Router started(Router router, Consumer<Router> local) {
        try {
            // Before anything is posted: the router's thread is not busy yet, as for the in-process worker below.
            router.registration.rememberWorkers();
            local.accept(router);
            router.queue.subscribe(router.dispatch.queueEvents(router.loop::post));
            router.maintenance.start(router.loop::every);
            // What was remembered is readable at once, not after the first event.
            router.call(() -> null);
        } catch (RuntimeException e) {
            // Its thread and timers run already: a router that did not start stops.
            router.close();
            throw e;
        }
        return router;
    }

    /** The settings this router runs with. */
    public RouterSettings settings() {
        return settings;
    }

    /** A new worker connection, let in with the shared worker secret; feed it the worker's frames. */
    public WorkerConnection connect(WorkerLink link) {
        return admitted(new Connection(this, link, false, codec, clock));
    }

    /**
     * A new worker connection, let in with a paired machine's token; feed it the worker's frames.
     *
     * @param link   the transport
     * @param paired who the connection's credential says it is: it may register as that worker id and name only
     */
    public WorkerConnection connect(WorkerLink link, PairedIdentity paired) {
        return admitted(new Connection(this, link, codec, clock, paired));
    }

    private WorkerConnection admitted(Connection connection) {
        registration.expectRegister(connection);
        return connection;
    }

    /**
     * Submits a tool call: it is queued and, if a worker that has the tool has a free slot, dispatched at once.
     *
     * @throws RouterException for an unknown tool or worker, invalid params or values out of range
     */
    public Submission submit(TaskRequest request) {
        return RouterLoop.await(submissions.submit(request));
    }

    /** Calls waiting for the router's thread to queue them (for tests). */
    int pendingSubmissions() {
        return submissions.size();
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
        return call(() -> waits.completion(taskId));
    }

    /** Why a queued task is not running yet (no worker online, all busy, a retry later); empty otherwise. */
    public Optional<Waiting> waiting(String taskId) {
        return call(() -> waits.waiting(taskId));
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

    /**
     * A future that completes once the task has finished, or once it waits for a machine that is offline or for a
     * tool no online machine has (at once if it does now): whoever waits for a result learns that it may be long,
     * without asking again and again.
     */
    public CompletableFuture<Awaited> finishedOrOffline(String taskId) {
        return call(() -> waits.finishedOrOffline(taskId));
    }

    /** Every worker the router has seen since it started: online ones first, then by name. */
    public List<WorkerInfo> workers() {
        return view().workers();
    }

    /** Every tool the brain knows, with the online workers that have it. */
    public List<ToolInfo> tools() {
        return view().tools();
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
        return state.activeWorker(session);
    }

    /**
     * Closes the connection of worker {@code id}, if it is online here (1008, {@code reason}): its credential was
     * taken back. Its running tasks are handled as for any lost worker.
     *
     * @return whether it was online here
     */
    public boolean disconnect(String id, String reason) {
        return call(() -> registration.disconnect(id, reason));
    }

    /**
     * Tells the router which worker ids and names belong to paired machines ({@code paired} answers from memory,
     * on the router's thread): a connection let in with the shared secret may not register as one of them.
     */
    public void protectPaired(BiPredicate<String, String> paired) {
        registration.paired = paired;
    }

    /** Adds a listener for task and worker events. */
    public void addListener(RouterListener listener) {
        state.listeners.add(listener);
    }

    /**
     * How many calls have waited for the router's thread since it started (a submission, a cancel, a wait being set
     * up): what holds callers up behind the queue's statements. Reads of workers and tools do not wait.
     */
    public long callsWaited() {
        return loop.calls() + submissions.submitted();
    }

    /**
     * How long the router's thread has been on the event it handles now (zero while it waits for one): a long time
     * means it is stuck, most likely in a queue statement that does not answer, and no call gets through.
     */
    public Duration busy() {
        return loop.busy();
    }

    /** Whether the router is stopping or stopped ({@link #close}). */
    public boolean stopping() {
        return stopping;
    }

    /** Tasks queued now. */
    public long queuedCount() {
        return queue.countQueued();
    }

    /** Tasks dispatched to workers and not yet finished. */
    public int runningCount() {
        return view().running();
    }

    /** Workers online, not counting the brain's in-process worker. */
    public int workersOnline() {
        return view().workersOnline();
    }

    /** Stops the router: its workers are disconnected (1001) and its threads stopped. The queue stays open. */
    @Override
    public void close() {
        stopping = true;
        try {
            call(() -> {
                state.sessions.values().forEach(s -> s.link.close(1001, "brain shutting down"));
                return null;
            });
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Router did not close its workers cleanly", e);
        }
        reports.close();
        if (loop.stop()) {
            // Acceptances whose flush was still waiting (or was refused by the closing loop) are stored now: a task
            // left claimed while its worker runs it would go back to the queue as never started.
            reports.flushStarts();
        } else {
            LOG.log(Level.WARNING, "Router's thread did not stop in time; tasks accepted in its last moments may "
                    + "stay claimed until their leases run out");
        }
        submissions.refuse(new QueueException("the brain shut down before the call was queued; submit it again once "
                + "the brain runs"));
    }

    void onMessage(Connection connection, Message message) {
        workers.onMessage(connection, message);
    }

    void onClosed(Connection connection, String why) {
        workers.onClosed(connection, why);
    }

    /** Runs {@code work} on the router's thread, logging anything it throws. */
    void post(Runnable work) {
        loop.post(work);
    }

    /** Publishes what the router knows now; on its thread. */
    private void publish() {
        view = RouterView.of(state, settings, view);
    }

    /** Whether workers or tools came or went since the view was published. */
    private boolean workersOrToolsChanged() {
        return state.toolsVersion != view.toolsVersion();
    }

    /** What the router knows, as published; a thread that posted something not shown yet waits for it. */
    private RouterView view() {
        if (!loop.publishedForThisThread()) {
            loop.call(() -> null);
        }
        return view;
    }

    private <T> T call(Callable<T> work) {
        return loop.call(work);
    }

    private void startLocalWorker(LocalToolExecutor executor) {
        InProcessWorker link = new InProcessWorker();
        new LocalWorker(settings, state, loop::post).start(executor, link,
                new Connection(this, link, true, codec, clock));
    }
}
