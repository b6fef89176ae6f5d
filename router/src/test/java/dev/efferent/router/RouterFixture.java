package dev.efferent.router;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.plugin.Settings;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import org.junit.jupiter.api.AfterEach;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** A router over a memory queue, with short heartbeats, for tests. */
abstract class RouterFixture {
    static final Duration HEARTBEAT = Duration.ofMillis(300);
    TaskQueue queue;
    Router router;

    Router start(boolean hands) {
        return start(settings(hands));
    }

    Router start(boolean hands, LocalToolExecutor local) {
        return start(settings(hands), local);
    }

    Router start(RouterSettings settings) {
        if (queue == null) {
            openQueue();
        }
        router = Router.start(settings, queue, Stores.inMemory(), new ProtocolCodec(), Clock.systemUTC());
        return router;
    }

    Router start(RouterSettings settings, LocalToolExecutor local) {
        if (queue == null) {
            openQueue();
        }
        router = Router.start(settings, queue, Stores.inMemory(), local, new ProtocolCodec(), Clock.systemUTC());
        return router;
    }

    /** A router whose timers and clock move only when {@code time} is advanced. */
    Router start(RouterSettings settings, ManualScheduler time) {
        if (queue == null) {
            openQueue(time.clock());
        }
        router = Router.start(settings, queue, Stores.inMemory(), new ProtocolCodec(), time.clock(), time);
        return router;
    }

    private static RouterSettings settings(boolean hands) {
        return RouterSettings.defaults().withHands(hands).withHeartbeatInterval(HEARTBEAT)
                .withPollInterval(Duration.ofMillis(100));
    }

    /** Opens the memory queue the next {@link #start} uses, e.g. to put tasks in it before a router runs. */
    TaskQueue openQueue() {
        return openQueue(Clock.systemUTC());
    }

    /** {@link #openQueue()} on {@code clock}. */
    TaskQueue openQueue(Clock clock) {
        queue = Queues.providers().build().select("memory").open(key -> switch (key) {
            case "retry-backoff" -> Optional.of("PT0.1S");
            default -> Optional.empty();
        }, clock);
        return queue;
    }

    /**
     * Moves {@code time} on by {@code duration} in steps of 100 ms, doing {@code eachStep} (a heartbeat, say) before
     * each, and letting the router act on what each step's timers posted before the next.
     */
    void pass(ManualScheduler time, Duration duration, Runnable eachStep) {
        for (Duration passed = Duration.ZERO; passed.compareTo(duration) < 0; passed = passed.plus(STEP)) {
            eachStep.run();
            time.advance(STEP);
            router.workers(); // runs on the router's thread after what the timers posted
        }
    }

    private static final Duration STEP = Duration.ofMillis(100);

    @AfterEach
    void stopRouter() {
        if (router != null) {
            router.close();
        }
        if (queue != null) {
            queue.close();
        }
    }

    static ObjectNode params(String json) {
        try {
            return (ObjectNode) FakeWorker.JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    Task await(String taskId) {
        try {
            return router.completion(taskId).get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("task " + taskId + " did not finish: " + router.task(taskId), e);
        }
    }

    TaskStatus status(String taskId) {
        return router.task(taskId).orElseThrow().status();
    }

    static final Settings NONE = Settings.empty();
}
