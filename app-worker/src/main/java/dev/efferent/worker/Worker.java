package dev.efferent.worker;

import dev.efferent.core.tools.DurationText;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.SystemLoad;
import dev.efferent.core.tools.TaskRunner;
import dev.efferent.core.tools.ToolDescriptors;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.RejectReason;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerHeartbeat;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.protocol.WorkerTools;

import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The worker: keeps a connection to a brain (reconnecting with backoff and jitter, failing over between
 * brains), registers its tools, heartbeats, runs dispatched tasks concurrently, and keeps every result in the
 * journal until the brain acknowledges it. A connection that is not registered within
 * {@code worker.register-timeout}, or whose brain falls silent for {@code worker.brain-timeout} (it is pinged
 * when quiet), is given up and a new one opened. The commands its tools start are recorded, so that the next
 * worker process kills those a killed one left behind ({@link ChildProcesses}).
 */
final class Worker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Worker.class.getName());

    private final Credential credential;
    private final WorkerSettings settings;
    private final String workerId;
    private final ProtocolCodec codec;
    private final ResultJournal journal;
    private final TaskRunner runner;
    private final LocalToolExecutor executor;
    private final String platform;
    private final long startedNanos = System.nanoTime();
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-heartbeat").daemon().factory());
    /** Apart from the heartbeats: a heartbeat's write can block on a dead link, and this must notice it. */
    private final ScheduledExecutorService linkWatch = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-link-watch").daemon().factory());
    private final ChildProcesses children;
    private volatile BrainSession current;
    private volatile ScheduledFuture<?> heartbeat;
    private volatile boolean stopping;

    /**
     * A worker whose own rules ({@code guard}) refuse some calls, whatever the brain allowed; it gets in with
     * {@code credential}.
     */
    Worker(WorkerSettings settings, String workerId, Credential credential, LocalToolExecutor executor,
           ProtocolCodec codec, TaskRunner.Guard guard) {
        this.credential = credential;
        this.settings = settings;
        this.workerId = workerId;
        this.executor = executor;
        this.codec = codec;
        this.journal = new ResultJournal(settings.stateDir().resolve("journal"), codec);
        this.runner = new TaskRunner(executor, settings.maxConcurrency(), new TaskRunner.Listener() {
            @Override
            public void reply(Message message) {
                try {
                    if (message instanceof TaskResult result) {
                        journal.record(result);
                    } else if (message instanceof TaskRejected r && r.reason() == RejectReason.SHUTTING_DOWN) {
                        // Handed back, not finished: nothing to report after a restart.
                        journal.forget(r.taskId());
                    }
                } catch (RuntimeException e) {
                    // A full disk, say: the result still goes to the brain and is offered until acknowledged; only a
                    // restart of this worker before that would lose it.
                    LOG.log(Level.ERROR, "Could not write a task's " + message.type() + " to the result journal; "
                            + "sending it anyway", e);
                }
                send(message);
                if (message instanceof TaskRejected r && r.reason() == RejectReason.UNKNOWN_TOOL) {
                    // The brain thought this worker had that tool: it gets the list as it is, not a guess.
                    BrainSession session = current;
                    if (session != null) {
                        sendTools(session);
                    }
                }
            }

            @Override
            public void starting(TaskDispatch dispatch) {
                try {
                    journal.markRunning(dispatch.taskId());
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, "Could not mark task " + dispatch.taskId() + " running in the result journal "
                            + "(a restart while it runs would not report it)", e);
                }
                children.taskStarting();
            }
        }, guard);
        this.children = new ChildProcesses(settings.stateDir(), () -> runner.active() > 0);
        this.platform = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replace(' ', '-') + "-"
                + System.getProperty("os.arch", "");
        // A toolkit's tools changed (an MCP server restarted, say): the brain gets the list as it is now.
        executor.catalog().onChange(this::announceTools);
        children.killLeftovers();
        int recovered = journal.recoverAfterRestart();
        if (recovered > 0) {
            LOG.log(Level.WARNING, "{0} running when the worker last stopped; reported as failed",
                    recovered == 1 ? "1 task was" : recovered + " tasks were");
        }
        children.start();
        // Ping a quiet link after a third of the brain timeout, at most every second; look ten times as often.
        Duration pingAfter = min(Duration.ofSeconds(1), settings.brainTimeout().dividedBy(3));
        long tick = Math.max(10, Math.min(100, pingAfter.toMillis() / 4));
        linkWatch.scheduleWithFixedDelay(() -> {
            BrainSession session = current;
            try {
                if (session != null) {
                    session.watch(pingAfter, settings.brainTimeout());
                }
            } catch (RuntimeException e) {
                // An escape would stop the watch for good, and a dead link would hang the worker again.
                LOG.log(Level.WARNING, "The link watch failed once; it keeps watching", e);
            }
        }, tick, tick, TimeUnit.MILLISECONDS);
    }

    /** The tools this worker offers now. */
    private List<ToolDescriptor> capabilities() {
        return executor.catalog().entries().stream().map(ToolDescriptors::of).toList();
    }

    private void announceTools() {
        BrainSession session = current;
        if (session != null && session.registered()) {
            LOG.log(Level.INFO, "Telling the brain the tools changed: {0} now", sendTools(session).size());
        }
    }

    /** Sends the tools as they are now; under one lock, so that an older list never arrives after a newer one. */
    private synchronized List<ToolDescriptor> sendTools(BrainSession session) {
        List<ToolDescriptor> now = capabilities();
        session.send(new WorkerTools(now));
        return now;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * Connects and serves until {@link #close()} or until the reconnect attempts are used up.
     *
     * @return false if it gave up reconnecting
     */
    boolean run() {
        List<URI> brains = settings.brainUrls();
        int failures = 0;
        int next = 0;
        while (!stopping) {
            URI brain = brains.get(next % brains.size());
            BrainSession session = new BrainSession(brain, this, codec, new WorkerRegister(Message.PROTOCOL_VERSION,
                    workerId, settings.name(), WorkerSettings.hostname(), platform, capabilities(),
                    settings.maxConcurrency()));
            String outcome = connect(brain, session);
            if (stopping) {
                break;
            }
            failures = session.registered() ? 1 : failures + 1;
            if (settings.maxReconnectAttempts() > 0 && failures > settings.maxReconnectAttempts()) {
                LOG.log(Level.ERROR, "Giving up after {0} failed attempts to reach a brain ({1})",
                        settings.maxReconnectAttempts(), brains);
                return false;
            }
            next++;
            Duration delay = backoff(failures);
            URI then = brains.get(next % brains.size());
            String where = then.equals(brain) ? "" : " to " + then;
            if (session.registered()) {
                LOG.log(Level.INFO, "Disconnected from {0}: {1}; reconnecting{2} in {3}", brain, outcome, where,
                        DurationText.of(delay));
            } else {
                LOG.log(Level.WARNING, "{0}; retrying{1} in {2} (attempt {3})",
                        outcome.substring(0, 1).toUpperCase(Locale.ROOT) + outcome.substring(1), where,
                        DurationText.of(delay), failures);
            }
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return true;
    }

    /**
     * One connection: open, register, serve until the link ends. Opening and registering together get
     * {@code worker.register-timeout}; after that the link watch ends a dead link.
     *
     * @return why the connection ended, as a phrase naming the brain where it never registered
     */
    private String connect(URI brain, BrainSession session) {
        current = session;
        LOG.log(Level.INFO, "Connecting to brain {0} as {1} ({2})", brain, settings.name(), workerId);
        Duration limit = settings.registerTimeout();
        // The read timeout bounds the upgrade, and ends the reader of a link the watch gave up.
        session.open(credential, limit,
                settings.brainTimeout().compareTo(limit) > 0 ? settings.brainTimeout() : limit);
        try {
            boolean timedOut = false;
            try {
                CompletableFuture.anyOf(session.acked(), session.closed()).get(limit.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                timedOut = true;
                session.close(1001, "no worker:ack from " + brain + " within " + DurationText.of(limit));
            }
            String outcome = session.closed().get();
            return session.registered() || timedOut || !session.opened() ? outcome
                    : "lost the connection to " + brain + " before worker:ack: " + outcome;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (ExecutionException e) {
            // Never happens: closed() is only ever completed with a reason.
            return String.valueOf(e.getCause());
        } finally {
            stopHeartbeats();
        }
    }

    private Duration backoff(int failures) {
        long max = settings.reconnectMax().toMillis();
        long base = Math.min(max, settings.reconnectInitial().toMillis() << Math.min(20, Math.max(0, failures - 1)));
        // Jitter: somewhere in the upper half, so many workers do not reconnect in step after a brain restart.
        return Duration.ofMillis(base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1));
    }

    void registered(BrainSession session, URI brain, WorkerAck ack) {
        LOG.log(Level.INFO, "Registered with brain {0} as {1} ({2}): {3} tools, {4} tasks queued for this worker",
                brain, settings.name(), ack.workerId(), session.registration().capabilities().size(), ack.queuedTasks());
        if (!session.registration().capabilities().equals(capabilities())) {
            // They changed while this registration was on its way.
            sendTools(session);
        }
        stopHeartbeats();
        long interval = ack.heartbeatIntervalMs();
        heartbeat = heartbeats.scheduleAtFixedRate(() -> {
            double load = SystemLoad.average();
            long uptime = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
            session.send(new WorkerHeartbeat(uptime, load, runner.active()));
            // A result the brain did not acknowledge (its database was down, say) is offered again.
            journal.pending(Duration.ofMillis(5 * interval)).forEach(session::send);
        }, interval, interval, TimeUnit.MILLISECONDS);
        List<TaskResult> pending = journal.pending();
        if (!pending.isEmpty()) {
            LOG.log(Level.INFO, "Sending {0} results the brain has not acknowledged yet", pending.size());
            pending.forEach(session::send);
        }
    }

    void dispatch(TaskDispatch d) {
        LOG.log(Level.DEBUG, "Task {0}: {1} (attempt {2})", d.taskId(), d.tool(), d.attempt());
        if (!runner.isRunning(d.taskId())) {
            var held = journal.pending(d.taskId());
            if (held.isPresent()) {
                // Already ran here: its result is waiting for an ack, so send that instead of running it twice.
                send(held.get());
                return;
            }
        }
        runner.handle(d);
    }

    void cancel(TaskCancel c) {
        LOG.log(Level.INFO, "Task {0} cancelled by the brain: {1}", c.taskId(), c.reason());
        runner.handle(c);
    }

    void acknowledged(String taskId) {
        journal.acknowledge(taskId);
    }

    private void send(Message message) {
        BrainSession session = current;
        if (session != null) {
            session.send(message);
        }
    }

    /**
     * At a stop (SIGTERM), running tasks get {@code worker.shutdown-grace} to finish and report; those still
     * running then are stopped and handed back, so a routine restart never cancels the user's work.
     */
    private void finishOrHandBack() {
        int running = runner.running();
        if (running == 0) {
            return;
        }
        try {
            LOG.log(Level.INFO, "Stopping: waiting up to {0} for {1} to finish", DurationText.of(settings.shutdownGrace()),
                    running == 1 ? "1 running task" : running + " running tasks");
            if (runner.awaitIdle(settings.shutdownGrace())) {
                LOG.log(Level.INFO, "Every running task finished");
                return;
            }
            int handed = runner.handBackAll();
            // Long enough for the stopped tools to return and their hand-backs to be sent.
            boolean sent = runner.awaitIdle(Duration.ofSeconds(3));
            LOG.log(Level.WARNING, "Handed back {0} to the brain after {1}: {2}", handed == 1 ? "1 task"
                    : handed + " tasks", DurationText.of(settings.shutdownGrace()), sent
                    ? "it queues them again" : "some tools did not stop; the brain fails or requeues them when the "
                    + "link closes");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stopHeartbeats() {
        ScheduledFuture<?> h = heartbeat;
        if (h != null) {
            h.cancel(false);
        }
    }

    @Override
    public void close() {
        stopping = true;
        LOG.log(Level.INFO, "Worker {0} stopping: it takes no new tasks", settings.name());
        runner.drain();
        finishOrHandBack();
        linkWatch.shutdownNow();
        children.close();
        runner.cancelAll("worker shutting down");
        BrainSession session = current;
        if (session != null) {
            try {
                // The close frame tells the brain at once; the JVM may exit right after this returns.
                session.close(1000, "worker shutting down").get(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.log(Level.DEBUG, "The brain connection did not close within 1 s: {0}", e.toString());
            }
        }
        heartbeats.shutdownNow();
        journal.close();
        LOG.log(Level.INFO, "Worker {0} stopped", settings.name());
    }
}
