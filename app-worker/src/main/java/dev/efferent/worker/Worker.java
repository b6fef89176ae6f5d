package dev.efferent.worker;

import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.TaskRunner;
import dev.efferent.core.tools.ToolDescriptors;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.TaskCancel;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.TaskResult;
import dev.efferent.protocol.WorkerAck;
import dev.efferent.protocol.WorkerHeartbeat;
import dev.efferent.protocol.WorkerRegister;
import io.helidon.common.socket.SocketOptions;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webclient.websocket.WsClient;
import io.helidon.webclient.websocket.WsClientException;

import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The worker: keeps a connection to a brain (reconnecting with backoff and jitter, failing over between
 * brains), registers its tools, heartbeats, runs dispatched tasks concurrently, and keeps every result in the
 * journal until the brain acknowledges it.
 */
final class Worker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Worker.class.getName());

    private final WorkerSettings settings;
    private final String workerId;
    private final ProtocolCodec codec;
    private final ResultJournal journal;
    private final TaskRunner runner;
    private final WorkerRegister register;
    private final long startedNanos = System.nanoTime();
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-heartbeat").daemon().factory());
    private volatile BrainSession current;
    private volatile ScheduledFuture<?> heartbeat;
    private volatile boolean stopping;

    Worker(WorkerSettings settings, String workerId, LocalToolExecutor executor, ProtocolCodec codec) {
        this.settings = settings;
        this.workerId = workerId;
        this.codec = codec;
        this.journal = new ResultJournal(settings.stateDir().resolve("journal"), codec);
        this.runner = new TaskRunner(executor, settings.maxConcurrency(), new TaskRunner.Listener() {
            @Override
            public void reply(Message message) {
                if (message instanceof TaskResult result) {
                    journal.record(result);
                }
                send(message);
            }

            @Override
            public void starting(TaskDispatch dispatch) {
                journal.markRunning(dispatch.taskId());
            }
        });
        String platform = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replace(' ', '-') + "-"
                + System.getProperty("os.arch", "");
        this.register = new WorkerRegister(Message.PROTOCOL_VERSION, workerId, settings.name(),
                WorkerSettings.hostname(), platform,
                executor.catalog().entries().stream().map(ToolDescriptors::of).toList(), settings.maxConcurrency());
        int recovered = journal.recoverAfterRestart();
        if (recovered > 0) {
            LOG.log(Level.WARNING, "{0} tasks were running when the worker last stopped; they will be reported as "
                    + "failed", recovered);
        }
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
            BrainSession session = new BrainSession(brain, this, codec, register);
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
            LOG.log(Level.INFO, "Disconnected from {0}: {1}. Reconnecting to {2} in {3} ms (attempt {4})", brain,
                    outcome, brains.get(next % brains.size()), String.valueOf(delay.toMillis()), failures);
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return true;
    }

    private String connect(URI brain, BrainSession session) {
        current = session;
        LOG.log(Level.INFO, "Connecting to brain {0} as {1} ({2})", brain, settings.name(), workerId);
        try {
            WsClient client = WsClient.builder()
                    .baseUri(brain.toString())
                    .addHeader(HeaderValues.create(HeaderNames.AUTHORIZATION, "Bearer " + settings.secret()))
                    .socketOptions(SocketOptions.builder()
                            .connectTimeout(Duration.ofSeconds(10))
                            .tcpNoDelay(true)
                            .readTimeout(settings.brainTimeout())
                            .build())
                    .build();
            client.connect(endpoint(brain), session);
        } catch (WsClientException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            if (message.contains("401")) {
                LOG.log(Level.ERROR, "The brain at {0} refused the worker secret (401 Unauthorized); set "
                        + "EFFERENT_WORKER_SECRET or --secret-file to the brain''s worker.secret", brain);
                return "secret refused";
            }
            return "upgrade failed: " + message;
        } catch (RuntimeException e) {
            return "cannot connect: " + rootMessage(e);
        }
        try {
            return session.closed().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (ExecutionException e) {
            return rootMessage(e);
        } finally {
            stopHeartbeats();
        }
    }

    private static String endpoint(URI brain) {
        String path = brain.getPath() == null ? "" : brain.getPath();
        return path.endsWith("/ws/worker") ? path : path.replaceAll("/+$", "") + "/ws/worker";
    }

    private Duration backoff(int failures) {
        long max = settings.reconnectMax().toMillis();
        long base = Math.min(max, settings.reconnectInitial().toMillis() << Math.min(20, Math.max(0, failures - 1)));
        // Jitter: somewhere in the upper half, so many workers do not reconnect in step after a brain restart.
        return Duration.ofMillis(base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1));
    }

    void registered(BrainSession session, URI brain, WorkerAck ack) {
        LOG.log(Level.INFO, "Registered with brain {0} as {1} ({2}): {3} tools, {4} tasks queued for this worker",
                brain, settings.name(), ack.workerId(), register.capabilities().size(), ack.queuedTasks());
        stopHeartbeats();
        long interval = ack.heartbeatIntervalMs();
        heartbeat = heartbeats.scheduleAtFixedRate(() -> {
            double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            long uptime = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
            session.send(new WorkerHeartbeat(uptime, load, runner.active()));
            session.ping();
            // The brain answers every ping; three intervals of silence mean the link is dead even if the
            // socket has not said so (a killed brain, a dropped network).
            if (session.silence().toMillis() > Math.max(3 * interval, 1000)) {
                session.close(1001, "no answer from the brain for " + session.silence().toMillis() + " ms");
            }
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
            var held = journal.pending().stream().filter(r -> r.taskId().equals(d.taskId())).findFirst();
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

    private void stopHeartbeats() {
        ScheduledFuture<?> h = heartbeat;
        if (h != null) {
            h.cancel(false);
        }
    }

    @Override
    public void close() {
        stopping = true;
        runner.cancelAll("worker shutting down");
        BrainSession session = current;
        if (session != null) {
            session.close(1000, "worker shutting down");
        }
        heartbeats.shutdownNow();
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
