package dev.efferent.brain;

import dev.efferent.queue.Task;
import dev.efferent.router.Router;
import dev.efferent.router.RouterListener;
import io.helidon.metrics.api.Gauge;
import io.helidon.metrics.api.Meter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.Metrics;
import io.helidon.metrics.api.Timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The brain's meters, served at {@code /observe/metrics}: queued and running tasks, workers online, and how
 * long tasks wait before dispatch. Helidon serves the global registry; a closed brain removes its meters, so
 * a later brain in the same JVM (tests) registers its own.
 */
final class BrainMetrics implements RouterListener {
    private final MeterRegistry registry = Metrics.globalRegistry();
    private final List<Meter> meters = new ArrayList<>();
    private final Timer dispatchLatency;

    BrainMetrics(Router router) {
        meters.add(registry.getOrCreate(Gauge.builder("efferent.tasks.queued", router::queuedCount)
                .description("Tasks waiting in the queue")));
        meters.add(registry.getOrCreate(Gauge.builder("efferent.tasks.running", router::runningCount)
                .description("Tasks dispatched to workers and not yet finished")));
        meters.add(registry.getOrCreate(Gauge.builder("efferent.workers.online", router::workersOnline)
                .description("Workers connected, not counting the brain's in-process worker")));
        dispatchLatency = registry.getOrCreate(Timer.builder("efferent.dispatch.latency")
                .description("Time from a task's submission to its dispatch to a worker")
                .percentiles(0.5, 0.99));
        meters.add(dispatchLatency);
    }

    @Override
    public void dispatched(Task task, String workerId, Duration waited) {
        dispatchLatency.record(waited.isNegative() ? Duration.ZERO : waited);
    }

    void close() {
        meters.forEach(registry::remove);
    }
}
