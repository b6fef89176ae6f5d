package dev.efferent.router;

import dev.efferent.core.tools.DurationText;
import dev.efferent.core.tools.ParamsSchema;
import dev.efferent.protocol.ErrorCode;
import dev.efferent.protocol.ErrorMessage;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolException;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerHeartbeat;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.protocol.WorkerTools;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;

/**
 * Workers coming and going: registration (and a newcomer taking over a dead link's id), tool lists, heartbeats, and a
 * worker that is lost. Runs on the router's thread only.
 */
final class WorkerRegistration {
    private static final System.Logger LOG = System.getLogger(WorkerRegistration.class.getName());
    /** How long a live worker's connection has to answer a ping before a newcomer with its id takes over. */
    static final Duration TAKEOVER_PROBE = Duration.ofSeconds(2);
    /** How long a new connection may take to send {@code worker:register}. */
    static final Duration REGISTER_TIMEOUT = Duration.ofSeconds(10);

    private final RouterSettings settings;
    private final TaskQueue queue;
    private final Clock clock;
    private final RouterState state;
    private final BiFunction<Runnable, Duration, Future<?>> scheduler;
    private final Dispatch dispatch;
    private final TaskReports reports;
    /** Tells whoever waits for a task that its machine may have gone (Waits.recheckOffline, after the turn). */
    private final Runnable machinesChanged;
    /** Whether a worker id or name belongs to a paired machine, which only its own token may register as. */
    volatile BiPredicate<String, String> paired = (id, name) -> false;

    WorkerRegistration(RouterSettings settings, TaskQueue queue, Clock clock, RouterState state,
                       BiFunction<Runnable, Duration, Future<?>> scheduler, Dispatch dispatch, TaskReports reports,
                       Runnable machinesChanged) {
        this.machinesChanged = machinesChanged;
        this.settings = settings;
        this.queue = queue;
        this.clock = clock;
        this.state = state;
        this.scheduler = scheduler;
        this.dispatch = dispatch;
        this.reports = reports;
    }

    /** The workers seen before this start, offline until they connect: work can be queued for them by name. */
    void rememberWorkers() {
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
        state.toolsChanged();
        if (!remembered.isEmpty()) {
            LOG.log(Level.INFO, "Remembered {0} from before: {1}", count(remembered.size(), "worker"),
                    remembered.stream().map(r -> r.info().name()).toList());
        }
    }

    /** A new connection: closed unless it registers within {@link #REGISTER_TIMEOUT}. */
    void expectRegister(Connection connection) {
        connection.registrationTimer = scheduler.apply(() -> registrationDue(connection), REGISTER_TIMEOUT);
    }

    /** Closes worker {@code id}'s connection (1008): its credential was taken back. Whether it was online here. */
    boolean disconnect(String id, String reason) {
        WorkerSession s = state.sessions.get(id);
        if (s == null || !s.online || s.local) {
            return false;
        }
        LOG.log(Level.INFO, "Disconnecting worker {0} ({1}): {2}", s.name, s.id, reason);
        // Offline here and now, whether or not the peer ever reads the close: nothing more is sent to it, and
        // what it sends from now on is refused as from an unregistered connection.
        lose(s, reason);
        s.link.close(1008, reason);
        return true;
    }

    void heartbeat(WorkerSession s, WorkerHeartbeat h) {
        s.loadAverage = h.loadAverage();
        renewLeases(s);
        if (s.full && h.activeTasks() < s.maxConcurrency) {
            s.full = false;
            dispatch.pump(s);
        }
    }

    /**
     * A registered worker's tool list now: it replaces the one registered (checked the same way), except that a
     * tool the worker refused as unknown on this connection, and still lists, stays unused here, so that a worker
     * contradicting itself cannot bounce a task back and forth; that list counts as a refused frame. A list
     * without the tool settles it: the tool went (an MCP server's list changed), and may come back later.
     */
    void tools(Connection c, WorkerSession s, WorkerTools m) {
        Map<String, ParamsSchema> schemas;
        try {
            schemas = schemas(WorkerTools.TYPE, m.capabilities());
        } catch (ProtocolException e) {
            c.refuse(e);
            return;
        }
        Set<String> listed = new HashSet<>();
        m.capabilities().forEach(d -> listed.add(d.name()));
        s.refusedTools.retainAll(listed);
        List<ToolDescriptor> kept = m.capabilities().stream().filter(d -> !s.refusedTools.contains(d.name())).toList();
        List<String> before = List.copyOf(s.tools.keySet());
        s.replaceTools(kept, schemas);
        kept.forEach(d -> state.knownTools.putIfAbsent(d.name(), d));
        state.toolsChanged();
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
            if (!removed.isEmpty()) {
                machinesChanged.run();
            }
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

    void register(Connection c, WorkerRegister m) {
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
        state.toolsChanged();
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
        state.toolsChanged();
        int failed = 0;
        int requeued = 0;
        for (Inflight f : List.copyOf(s.inflight.values())) {
            if (f.storing()) {
                // Its result came before the link went, and is being stored: stored() settles it.
                continue;
            }
            Optional<Task> settled = reports.settleLost(f);
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
        machinesChanged.run();
    }

    /** "1 task", "2 tasks". */
    static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** A live worker keeps the leases of what it runs, even tasks another (dead) brain dispatched to it. */
    private void renewLeases(WorkerSession s) {
        Instant now = clock.instant();
        if (Duration.between(s.leasesRenewedAt, now).compareTo(settings.lease().dividedBy(4)) < 0) {
            return;
        }
        s.leasesRenewedAt = now;
        try {
            queue.renewLeases(s.id, settings.lease());
        } catch (QueueException e) {
            LOG.log(Level.WARNING, "Could not renew the leases of worker {0}: {1}", s.name, e.getMessage());
        }
    }}
