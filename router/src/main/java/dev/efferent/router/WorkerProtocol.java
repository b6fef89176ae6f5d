package dev.efferent.router;

import dev.efferent.core.tools.DurationText;
import dev.efferent.core.tools.ParamsSchema;
import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.protocol.ResultStatus;
import dev.efferent.protocol.TaskAccepted;
import dev.efferent.protocol.TaskProgress;
import dev.efferent.protocol.TaskRejected;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.TaskResultAck;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerHeartbeat;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.protocol.WorkerTools;
import dev.efferent.queue.IllegalTransitionException;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskNotFoundException;
import dev.efferent.queue.TaskQueue;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * What the router does with each message a worker sends, and with a worker that is lost. Runs on the router's
 * thread only.
 */
final class WorkerProtocol {
    private static final System.Logger LOG = System.getLogger(WorkerProtocol.class.getName());
    static final String DISCONNECTED = "Worker disconnected";
    /** How long a live worker's connection has to answer a ping before a newcomer with its id takes over. */
    static final Duration TAKEOVER_PROBE = Duration.ofSeconds(2);
    /** How long a new connection may take to send {@code worker:register}. */
    static final Duration REGISTER_TIMEOUT = Duration.ofSeconds(10);
    /** How often a task's progress is written to the queue: what other brains show is at most this old. */
    static final long STORE_PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RouterSettings settings;
    private final TaskQueue queue;
    private final Clock clock;
    private final RouterState state;
    private final BiFunction<Runnable, Duration, Future<?>> scheduler;
    private final Dispatch dispatch;
    private final Optional<ResultBatcher> results;
    private final Optional<StartBatcher> starts;
    private final Consumer<Runnable> post;
    /** Workers with slots freed by stored results, claimed for together (refillSoon). */
    private final java.util.Set<WorkerSession> toRefill = new java.util.LinkedHashSet<>();
    private boolean refillPosted;
    /** Whether a worker id or name belongs to a paired machine, which only its own token may register as. */
    volatile java.util.function.BiPredicate<String, String> paired = (id, name) -> false;

    WorkerProtocol(RouterSettings settings, TaskQueue queue, Clock clock, RouterState state,
                   BiFunction<Runnable, Duration, Future<?>> scheduler, Dispatch dispatch, Consumer<Runnable> post) {
        this.dispatch = dispatch;
        this.settings = settings;
        this.queue = queue;
        this.clock = clock;
        this.state = state;
        this.scheduler = scheduler;
        this.results = queue.batchesWrites() ? Optional.of(new ResultBatcher(queue, post, this::stored))
                : Optional.empty();
        this.post = post;
        this.starts = queue.batchesWrites() ? Optional.of(new StartBatcher(queue, settings.lease(), post, scheduler))
                : Optional.empty();
    }

    /** Stops storing results in batches; those not stored yet are not acknowledged, and come again. */
    void close() {
        results.ifPresent(ResultBatcher::close);
    }

    /** Stores the acceptances still waiting; for the router's close, once its thread has stopped. */
    void flushStarts() {
        starts.ifPresent(StartBatcher::flush);
    }

    void onMessage(Connection c, Message message) {
        if (message instanceof WorkerRegister register) {
            register(c, register);
            return;
        }
        WorkerSession s = c.session;
        if (s == null || !s.online) {
            c.refuse(new ProtocolException(ErrorCode.UNEXPECTED_MESSAGE,
                    message.type() + " before worker:register; register first"));
            return;
        }
        switch (message) {
            case WorkerHeartbeat h -> {
                s.loadAverage = h.loadAverage();
                renewLeases(s);
                if (s.full && h.activeTasks() < s.maxConcurrency) {
                    s.full = false;
                    dispatch.pump(s);
                }
            }
            case TaskAccepted a -> accepted(s, a);
            case TaskRejected r -> rejected(s, r);
            case TaskProgress p -> {
                Inflight f = state.inflight.get(p.taskId());
                Progress progress = new Progress(p.percent(), p.message(), clock.instant());
                if (f == null && holdsLease(s, p.taskId())) {
                    // Dispatched before this brain restarted: no listener here, but the task keeps its progress.
                    LOG.log(Level.DEBUG, "Progress of task {0} from {1}, not dispatched by this brain", p.taskId(), s.name);
                    store(s, p.taskId(), progress);
                } else if (f == null || f.session != s) {
                    notDispatchedHere(s, "task:progress", p.taskId());
                } else if (!f.cancelled) {
                    // Progress is kept for a running task only: its start, if still waiting, goes first.
                    starts.ifPresent(b -> b.startNow(p.taskId()));
                    state.progress.put(p.taskId(), progress);
                    store(s, p.taskId(), progress);
                    state.listeners.forEach(l -> l.progress(f.task, p.percent(), p.message()));
                }
            }
            case TaskResult r -> result(s, r);
            case WorkerTools t -> tools(c, s, t);
            case ErrorMessage e -> LOG.log(Level.WARNING, "Worker {0} reported {1}: {2}", s.name, e.code().wire(),
                    e.message());
            default -> c.link.send(new ErrorMessage(ErrorCode.UNEXPECTED_MESSAGE,
                    message.type() + " is sent by the brain, not by workers"));
        }
    }

    /**
     * A registered worker's tool list now: it replaces the one registered (checked the same way), except that a
     * tool the worker refused as unknown on this connection, and still lists, stays unused here, so that a worker
     * contradicting itself cannot bounce a task back and forth; that list counts as a refused frame. A list
     * without the tool settles it: the tool went (an MCP server's list changed), and may come back later.
     */
    private void tools(Connection c, WorkerSession s, WorkerTools m) {
        Map<String, ParamsSchema> schemas;
        try {
            schemas = schemas(WorkerTools.TYPE, m.capabilities());
        } catch (ProtocolException e) {
            c.refuse(e);
            return;
        }
        java.util.Set<String> listed = new java.util.HashSet<>();
        m.capabilities().forEach(d -> listed.add(d.name()));
        s.refusedTools.retainAll(listed);
        List<ToolDescriptor> kept = m.capabilities().stream().filter(d -> !s.refusedTools.contains(d.name())).toList();
        List<String> before = List.copyOf(s.tools.keySet());
        s.replaceTools(kept, schemas);
        kept.forEach(d -> state.knownTools.putIfAbsent(d.name(), d));
        // A tool nobody offers any more is not known any more (and a worker cannot grow the list without end).
        state.pruneKnownTools();
        List<String> added = kept.stream().map(ToolDescriptor::name).filter(n -> !before.contains(n)).toList();
        List<String> removed = before.stream().filter(n -> !s.tools.containsKey(n)).toList();
        if (!added.isEmpty() || !removed.isEmpty()) {
            state.known.remember(s.info(), List.copyOf(s.tools.values()));
        }
        if (added.isEmpty() && removed.isEmpty()) {
            LOG.log(Level.DEBUG, "Worker {0} sent its tool list: unchanged", s.name);
        } else {
            LOG.log(Level.INFO, "Worker {0}''s tools changed: added {1}, removed {2}", s.name, added, removed);
        }
        List<String> relisted = m.capabilities().stream().map(ToolDescriptor::name)
                .filter(s.refusedTools::contains).toList();
        if (!relisted.isEmpty()) {
            c.refuse(new ProtocolException(ErrorCode.INVALID_FIELD, "worker:tools lists " + relisted + ", which this "
                    + "worker refused as unknown_tool on this connection; they are not sent to it again until it "
                    + "registers again"));
        }
        if (added.isEmpty() && removed.isEmpty()) {
            dispatch.pump(s);
        } else {
            // Others may now claim what they could not: the brain leaves a HYBRID tool to workers that offer it.
            dispatch.pumpAll();
        }
    }

    private static void cancelRegistrationTimer(Connection c) {
        Future<?> timer = c.registrationTimer;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** A connection that has not registered within {@link #REGISTER_TIMEOUT} is closed. */
    void registrationDue(Connection c) {
        if (c.session != null || c.registering || c.gone) {
            return;
        }
        LOG.log(Level.WARNING, "Closing the connection from {0}: no worker:register within {1}", c.link.describe(),
                DurationText.of(REGISTER_TIMEOUT));
        c.link.send(new ErrorMessage(ErrorCode.UNEXPECTED_MESSAGE, "no worker:register within "
                + DurationText.of(REGISTER_TIMEOUT) + " of connecting"));
        c.link.close(1008, "no worker:register in time");
    }

    void onClosed(Connection c, String why) {
        c.gone = true;
        cancelRegistrationTimer(c);
        if (c.session != null) {
            lose(c.session, why);
        }
    }

    private void register(Connection c, WorkerRegister m) {
        if (c.session != null || c.registering) {
            c.refuse(new ProtocolException(ErrorCode.UNEXPECTED_MESSAGE, "worker:register: this connection is "
                    + "already registered" + (c.session != null ? " as " + c.session.name : "")));
            return;
        }
        if (m.protocolVersion() != Message.PROTOCOL_VERSION) {
            c.link.send(new ErrorMessage(ErrorCode.UNSUPPORTED_VERSION, "protocol version " + m.protocolVersion()
                    + " is not supported; this brain speaks version " + Message.PROTOCOL_VERSION));
            c.link.close(1008, "unsupported protocol version");
            return;
        }
        if (c.paired.isPresent() && !c.paired.get().workerId().equals(m.workerId())) {
            LOG.log(Level.WARNING, "Refused a connection from {0}: it registered as worker {1} with the token paired "
                    + "to worker {2}", c.link.describe(), m.workerId(), c.paired.get().workerId());
            c.link.send(new ErrorMessage(ErrorCode.UNEXPECTED_MESSAGE, "worker:register: this token was paired to "
                    + "worker id '" + c.paired.get().workerId() + "', not '" + m.workerId() + "'; a machine keeps its "
                    + "token and id together in its state directory (pair again to get a token for this id)"));
            c.link.close(1008, "token paired to another worker id");
            return;
        }
        if (c.paired.isEmpty() && !c.local && paired.test(m.workerId(), m.name())) {
            // The shared secret may not stand in for a paired machine: it would take its tasks.
            LOG.log(Level.WARNING, "Refused a connection from {0}: it registered with the shared secret as {1} ({2}), "
                    + "which is a paired machine", c.link.describe(), m.name(), m.workerId());
            c.link.send(new ErrorMessage(ErrorCode.UNEXPECTED_MESSAGE, "worker:register: '" + m.name() + "' ("
                    + m.workerId() + ") is a paired machine: it registers with its own token, not the shared secret "
                    + "(choose another --name, or revoke the paired one first)"));
            c.link.close(1008, "a paired machine's id or name");
            return;
        }
        if (c.paired.isPresent() && !c.paired.get().name().equals(m.name())) {
            // A name is how tasks are aimed at a machine: a paired one may not answer to another's.
            LOG.log(Level.WARNING, "Refused a connection from {0}: worker {1} paired as {2} registered as {3}",
                    c.link.describe(), m.workerId(), c.paired.get().name(), m.name());
            c.link.send(new ErrorMessage(ErrorCode.UNEXPECTED_MESSAGE, "worker:register: this machine was paired as '"
                    + c.paired.get().name() + "', not '" + m.name() + "': start it with --name " + c.paired.get().name()
                    + ", or pair it again under the new name"));
            c.link.close(1008, "token paired under another name");
            return;
        }
        WorkerSession previous = state.sessions.get(m.workerId());
        if (previous == null) {
            admit(c, m);
            return;
        }
        // A second connection with a live worker's id: the old one may be a dead link the brain has not noticed
        // yet (the worker reconnecting), or the worker is alive and the newcomer is someone else. Ask the old one.
        c.registering = true;
        previous.link.ping().toCompletableFuture()
                .orTimeout(TAKEOVER_PROBE.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((answered, failure) -> scheduler.apply(() -> takeOver(c, m, previous, failure == null),
                        Duration.ZERO));
    }

    private void takeOver(Connection c, WorkerRegister m, WorkerSession previous, boolean previousAnswered) {
        c.registering = false;
        if (c.gone) {
            return;
        }
        WorkerSession current = state.sessions.get(m.workerId());
        if (current != null && current != previous) {
            // Another newcomer with this id got in while we waited: it is the live one now. Ask it, as before.
            register(c, m);
            return;
        }
        if (previousAnswered && previous.online) {
            LOG.log(Level.WARNING, "Refused a connection from {0} registering as worker {1}: a live connection from "
                    + "{2} already has that id", c.link.describe(), m.workerId(), previous.link.describe());
            c.link.send(new ErrorMessage(ErrorCode.UNEXPECTED_MESSAGE, "worker:register: worker id '" + m.workerId()
                    + "' is already connected and answering; each machine needs its own worker id (delete the "
                    + "worker's id file to get a new one)"));
            c.link.close(1008, "worker id already connected");
            return;
        }
        if (previous.online) {
            lose(previous, "replaced by a new connection from " + c.link.describe()
                    + " (the old one did not answer a ping)");
            previous.link.close(1008, "replaced by a new connection");
        }
        admit(c, m);
    }

    /** The compiled input schema of each tool; refused (INVALID_FIELD) if one cannot be compiled. */
    static Map<String, ParamsSchema> schemas(String frame, List<ToolDescriptor> tools) {
        Map<String, ParamsSchema> schemas = new HashMap<>();
        for (ToolDescriptor tool : tools) {
            try {
                schemas.put(tool.name(), ParamsSchema.compile(tool.inputSchema()));
            } catch (IllegalArgumentException e) {
                throw new ProtocolException(ErrorCode.INVALID_FIELD, frame + ": tool '" + tool.name() + "': "
                        + e.getMessage());
            }
        }
        return schemas;
    }

    private void admit(Connection c, WorkerRegister m) {
        Map<String, ParamsSchema> schemas;
        try {
            schemas = schemas(WorkerRegister.TYPE, m.capabilities());
        } catch (ProtocolException e) {
            c.refuse(e);
            c.link.close(1008, "invalid tool schema");
            return;
        }
        String name = state.uniqueName(m.name(), m.workerId());
        if (!name.equals(m.name())) {
            LOG.log(Level.WARNING, "Worker name {0} is taken by another online worker: the one connecting from {1} "
                    + "({2}) is called {3}; give each machine its own --name", m.name(), c.link.describe(),
                    m.workerId(), name);
        }
        WorkerSession s = new WorkerSession(m, name, c, clock.instant(), schemas);
        c.session = s;
        cancelRegistrationTimer(c);
        state.sessions.put(s.id, s);
        state.offline.remove(s.id);
        // What a worker says now wins over what was remembered of it (or of another) before this start.
        m.capabilities().forEach(d -> {
            if (state.rememberedTools.remove(d.name())) {
                state.knownTools.put(d.name(), d);
            } else {
                state.knownTools.putIfAbsent(d.name(), d);
            }
        });
        state.known.remember(s.info(), List.copyOf(s.tools.values()));
        long queued = queue.countQueued(s.id, s.toolNames());
        c.link.send(new WorkerAck(s.id, queued, settings.heartbeatInterval().toMillis(), c.maxFrameBytes()));
        LOG.log(Level.INFO, "Worker {0} ({1}) online from {2}: {3} tools, {4} slots, {5} queued for it", s.name, s.id,
                c.link.describe(), s.tools.size(), s.maxConcurrency, queued);
        WorkerInfo info = s.info();
        state.listeners.forEach(l -> l.workerOnline(info));
        dispatch.pump(s);
    }

    private void accepted(WorkerSession s, TaskAccepted a) {
        Inflight f = state.inflight.get(a.taskId());
        if (f == null || f.session != s) {
            s.link.send(new ErrorMessage(ErrorCode.UNKNOWN_TASK, "task:accepted: task " + a.taskId()
                    + " was not dispatched to this worker"));
            return;
        }
        if (f.cancelled || f.accepted) {
            return;
        }
        if (starts.isPresent()) {
            // Counted as accepted from now on (a worker lost now fails the attempt rather than giving it back).
            f.accepted = true;
            f.leaseRenewedAt = clock.instant();
            starts.get().add(f);
            return;
        }
        try {
            queue.start(a.taskId(), s.id, settings.lease());
            f.accepted = true;
            f.leaseRenewedAt = clock.instant();
        } catch (QueueException e) {
            LOG.log(RouterState.level(e), "Task {0} accepted by {1} but not started: {2}", a.taskId(), s.name, e.getMessage());
        }
    }

    private void rejected(WorkerSession s, TaskRejected r) {
        Inflight f = state.inflight.get(r.taskId());
        if (f == null && holdsLease(s, r.taskId())) {
            LOG.log(Level.DEBUG, "Rejection of task {0} from {1}, not dispatched by this brain: its lease runs out and "
                    + "it is claimed again", r.taskId(), s.name);
            return;
        }
        if (f == null || f.session != s) {
            notDispatchedHere(s, "task:rejected", r.taskId());
            return;
        }
        state.forget(f);
        starts.ifPresent(b -> b.drop(r.taskId()));
        if (f.cancelled) {
            return;
        }
        LOG.log(Level.INFO, "Worker {0} rejected task {1} ({2}): {3} {4}", s.name, r.taskId(), f.task.tool(),
                r.reason().wire(), r.message());
        try {
            switch (r.reason()) {
                case BUSY -> {
                    s.full = true;
                    queue.release(r.taskId(), s.id);
                }
                case UNKNOWN_TOOL -> {
                    LOG.log(Level.WARNING, "Worker {0} refused {1} as an unknown tool, though it offered it: no more "
                            + "{1} calls go to it on this connection; its worker:tools says what it has now", s.name,
                            f.task.tool());
                    s.tools.remove(f.task.tool());
                    s.refusedTools.add(f.task.tool());
                    queue.release(r.taskId(), s.id);
                }
                case SHUTTING_DOWN -> {
                    // Given back, accepted or not: it runs on another worker, or here after the restart.
                    s.draining = true;
                    queue.release(r.taskId(), s.id);
                }
                case BAD_PARAMS -> state.finished(queue.fail(r.taskId(), r.message().isBlank()
                        ? "invalid params for " + f.task.tool() : r.message(), false));
            }
        } catch (QueueException e) {
            LOG.log(RouterState.level(e), "Rejected task {0} could not be put back: {1}", r.taskId(), e.getMessage());
        }
        dispatch.pumpAll();
    }

    private void result(WorkerSession s, TaskResult r) {
        Inflight f = state.inflight.get(r.taskId());
        boolean itsOwn;
        try {
            itsOwn = fromItsWorker(s, r, f);
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not check the result of task {0} from {1}: {2}; the worker will send it "
                    + "again", r.taskId(), s.name, e.getMessage());
            return;
        }
        if (!itsOwn) {
            notDispatchedHere(s, "task:result", r.taskId());
            return;
        }
        if (f != null && f.storing) {
            // Sent again before the first was stored: that one's acknowledgement answers both.
            return;
        }
        if (f != null && f.retryable && starts.isPresent() && starts.get().drop(r.taskId())) {
            // Its start, waiting for this result, is left out: the result takes the task from claimed to its end
            // (decision 34). Only such tasks are left claimed: see StartBatcher.GRACE.
            f.unstarted = true;
        }
        if (results.isPresent() && f != null && !f.cancelled && r.status() == ResultStatus.COMPLETED) {
            // Stored with others off this thread; acknowledged when stored (stored(), below).
            f.storing = true;
            results.get().add(new ResultBatcher.Pending(s, r, f));
            return;
        }
        if (f == null || !f.cancelled) {
            try {
                store(s, r);
            } catch (QueueException e) {
                // Not acknowledged, still in flight (its lease kept renewed): the worker offers it again.
                notStored(s, r, e);
                startAfterAll(f);
                return;
            }
        }
        acknowledge(s, r, f);
    }

    /**
     * A result not stored, whose task's start was left out for it: the task is started after all, so that while its
     * worker offers the result again it shows as what it is, accepted and running there, not as waiting for a worker.
     */
    private void startAfterAll(Inflight f) {
        if (f != null && f.unstarted && !f.cancelled && f.session.online) {
            f.unstarted = false;
            starts.ifPresent(b -> b.add(f));
        }
    }

    private static void notStored(WorkerSession s, TaskResult r, QueueException e) {
        LOG.log(Level.WARNING, "Could not store the result of task {0} from {1}: {2}; the worker will send it again",
                r.taskId(), s.name, e.getMessage());
    }

    private void acknowledge(WorkerSession s, TaskResult r, Inflight f) {
        acknowledgeOnly(s, r, f);
        if (s.online) {
            dispatch.refill(s);
        }
    }

    /** {@link #acknowledge} without the claim for the freed slot, which the caller makes (once for many). */
    private void acknowledgeOnly(WorkerSession s, TaskResult r, Inflight f) {
        if (f != null) {
            state.forget(f);
        }
        s.link.send(new TaskResultAck(r.taskId()));
        // A result frees a slot: a worker that said it was busy can take work again now, not at its next heartbeat.
        s.full = false;
    }

    /** A batch of results as the queue stored it: each is acknowledged, or explained as store() would. */
    private void stored(ResultBatcher.Stored stored) {
        for (ResultBatcher.Pending p : stored.batch()) {
            WorkerSession s = p.session();
            TaskResult r = p.result();
            p.inflight().storing = false;
            if (stored.failure().isPresent()) {
                notStored(s, r, stored.failure().get());
                if (!s.online) {
                    // lose() left it to this batch: settle it as lose() would have.
                    settleLost(p.inflight());
                } else {
                    startAfterAll(p.inflight());
                }
                continue;
            }
            Task task = stored.completed().get(r.taskId());
            if (task != null) {
                LOG.log(Level.DEBUG, "Task {0} ({1}) completed on {2} in {3} ms", task.id(), task.tool(), s.name,
                        r.durationMs());
                state.finished(task);
            } else {
                // Not completed by the batch (timed out, cancelled or lost meanwhile): the single path says why.
                try {
                    store(s, r);
                } catch (QueueException e) {
                    notStored(s, r, e);
                    startAfterAll(p.inflight());
                    continue;
                }
            }
            acknowledgeOnly(s, r, p.inflight());
            refillSoon(s);
        }
    }

    /**
     * Claims for the slots results freed once the events already waiting are handled: one claim per worker for
     * every batch stored meanwhile, not one per result (each claim is a commit that holds up the router's thread).
     */
    private void refillSoon(WorkerSession s) {
        toRefill.add(s);
        if (!refillPosted) {
            refillPosted = true;
            post.accept(() -> {
                refillPosted = false;
                List<WorkerSession> sessions = List.copyOf(toRefill);
                toRefill.clear();
                sessions.stream().filter(w -> w.online).forEach(dispatch::refill);
            });
        }
    }

    /**
     * Whether a result may come from {@code s}: a task in flight here only from the connection it was dispatched
     * to; otherwise (dispatched before a brain restart, or by another brain) only from the worker holding its
     * lease. A finished or unknown task is answered with an ack and changes nothing, so a worker re-offering a
     * result whose ack was lost is not refused for ever.
     */
    private boolean fromItsWorker(WorkerSession s, TaskResult r, Inflight f) {
        if (f != null) {
            return f.session == s;
        }
        Optional<Task> task = queue.get(r.taskId());
        return task.isEmpty() || task.get().status().isFinished() || task.get().leaseOwner().equals(Optional.of(s.id));
    }

    /** Writes a task's progress to the queue, at most once a second per task, so that every brain shows it. */
    private void store(WorkerSession s, String taskId, Progress progress) {
        long now = System.nanoTime();
        Long last = state.progressStored.get(taskId);
        if (last != null && now - last < STORE_PROGRESS_NANOS) {
            return;
        }
        state.progressStored.put(taskId, now);
        try {
            queue.progress(taskId, s.id, progress);
        } catch (QueueException e) {
            LOG.log(RouterState.level(e), "Could not keep the progress of task {0}: {1}", taskId, e.getMessage());
        }
    }

    private boolean holdsLease(WorkerSession s, String taskId) {
        try {
            return queue.get(taskId).flatMap(Task::leaseOwner).filter(s.id::equals).isPresent();
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not look up task {0} for worker {1}: {2}", taskId, s.name, e.getMessage());
            return false;
        }
    }

    private void notDispatchedHere(WorkerSession s, String what, String taskId) {
        LOG.log(Level.WARNING, "Refused {0} from worker {1} ({2}) for task {3}: it was not dispatched to that "
                + "connection", what, s.name, s.link.describe(), taskId);
        s.link.send(new ErrorMessage(ErrorCode.UNKNOWN_TASK, what + ": task " + taskId
                + " was not dispatched to this worker"));
    }

    private void store(WorkerSession s, TaskResult r) {
        try {
            Task task = switch (r.status()) {
                case COMPLETED -> queue.complete(r.taskId(), r.result().orElseThrow().toString());
                case FAILED -> queue.fail(r.taskId(), r.error().orElseThrow(), false);
                case CANCELLED -> queue.cancel(r.taskId(), r.error().orElseThrow());
            };
            LOG.log(Level.DEBUG, "Task {0} ({1}) {2} on {3} in {4} ms", task.id(), task.tool(), r.status().wire(),
                    s.name, r.durationMs());
            state.finished(task);
        } catch (TaskNotFoundException e) {
            LOG.log(Level.INFO, "Worker {0} sent a {1} result for unknown task {2} (the brain may have restarted "
                    + "since it was dispatched); acknowledged and dropped: {3}", s.name, r.status().wire(), r.taskId(),
                    r.result().map(Object::toString).or(r::error).orElse(""));
        } catch (IllegalTransitionException e) {
            Optional<Task> now = queue.get(r.taskId());
            now.filter(t -> t.status().isFinished()).ifPresent(state::completeWaiters);
            if (now.isPresent() && now.get().status().name().equals(r.status().name())
                    && now.get().error().equals(r.error())) {
                LOG.log(Level.DEBUG, "Ignored a repeated result from {0}: {1}", s.name, e.getMessage());
            } else {
                // The brain decided first (a timeout, a cancel, a lost lease): its decision stands, but say so.
                LOG.log(Level.INFO, "Worker {0} reported task {1} {2}, but it had already ended as {3}; the late "
                        + "result is dropped", s.name, r.taskId(), r.status().wire(), now.map(t -> t.status().name()
                        .toLowerCase(java.util.Locale.ROOT) + t.error().map(x -> " (" + x + ")").orElse(""))
                        .orElse("unknown"));
            }
        }
    }

    /**
     * A task of a lost worker, without a stored result: a running one fails (or is requeued, when retryable), a
     * claimed one goes back to the queue. Empty if it was cancelled or had already ended.
     */
    private Optional<Task> settleLost(Inflight f) {
        state.forget(f);
        // Its start, if still waiting, would find the task claimed again by the same worker after a quick requeue.
        starts.ifPresent(b -> b.drop(f.task.id()));
        if (f.cancelled) {
            return Optional.empty();
        }
        try {
            Task t = f.accepted ? queue.fail(f.task.id(), DISCONNECTED, f.retryable) : queue.release(f.task.id(), f.session.id);
            if (t.status().isFinished()) {
                state.finished(t);
            } else {
                state.workMayBeQueued();
            }
            return Optional.of(t);
        } catch (QueueException e) {
            LOG.log(RouterState.level(e), "Task {0} of lost worker {1} had already ended: {2}", f.task.id(),
                    f.session.name, e.getMessage());
            return Optional.empty();
        }
    }

    /** The worker is gone: its claimed tasks go back to the queue, its running ones fail or are requeued. */
    void lose(WorkerSession s, String why) {
        if (!s.online) {
            return;
        }
        s.online = false;
        // "Last seen" for an offline worker: the last thing heard from it (a close, a pong), not its last heartbeat,
        // which can be a whole interval earlier.
        Connection c = s.connection();
        if (c.lastHeard.isAfter(c.lastHeartbeat)) {
            c.lastHeartbeat = c.lastHeard;
        }
        state.sessions.remove(s.id, s);
        int failed = 0;
        int requeued = 0;
        for (Inflight f : List.copyOf(s.inflight.values())) {
            if (f.storing) {
                // Its result came before the link went, and is being stored: stored() settles it.
                continue;
            }
            Optional<Task> settled = settleLost(f);
            if (settled.isPresent() && settled.get().status().isFinished()) {
                failed++;
            } else if (settled.isPresent()) {
                requeued++;
            }
        }
        WorkerInfo info = s.info();
        state.offline.put(s.id, info);
        state.known.remember(info, List.copyOf(s.tools.values()));
        LOG.log(Level.WARNING, "Worker {0} ({1}) offline: {2}; {3} failed, {4} back in the queue", s.name, s.id,
                why, count(failed, "task"), count(requeued, "task"));
        state.listeners.forEach(l -> l.workerOffline(info));
        dispatch.pumpAll();
    }

    /** "1 task", "2 tasks". */
    static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** A live worker keeps the leases of what it runs, even tasks another (dead) brain dispatched to it. */
    private void renewLeases(WorkerSession s) {
        java.time.Instant now = clock.instant();
        if (Duration.between(s.leasesRenewedAt, now).compareTo(settings.lease().dividedBy(4)) < 0) {
            return;
        }
        s.leasesRenewedAt = now;
        try {
            queue.renewLeases(s.id, settings.lease());
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not renew the leases of worker {0}: {1}", s.name, e.getMessage());
        }
    }

}
