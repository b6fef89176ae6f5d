package dev.efferent.brain;

import io.helidon.health.HealthCheck;
import io.helidon.health.HealthCheckResponse;
import io.helidon.health.HealthCheckType;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One part the brain cannot take work without, asked by the readiness probe ({@code /observe/health/ready}): up with
 * what the part reports, down (503) with its error when it does not answer. {@link BrainAssembly#readiness} lists them.
 */
final class ReadinessCheck implements HealthCheck {
    private static final System.Logger LOG = System.getLogger(ReadinessCheck.class.getName());
    private final String name;
    private final Supplier<Map<String, Object>> probe;
    /** Whether the last probe failed: a change is logged once, not at every probe. */
    private final AtomicBoolean down = new AtomicBoolean();

    /**
     * A check.
     *
     * @param name  the part, as the health response names it
     * @param probe asks the part and returns what it said, shown as the check's details; throws when it cannot
     */
    ReadinessCheck(String name, Supplier<Map<String, Object>> probe) {
        this.name = name;
        this.probe = probe;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public HealthCheckType type() {
        return HealthCheckType.READINESS;
    }

    @Override
    public HealthCheckResponse call() {
        Map<String, Object> details;
        try {
            details = probe.get();
        } catch (RuntimeException e) {
            if (down.compareAndSet(false, true)) {
                LOG.log(Level.WARNING, "Not ready: the brain''s {0} does not answer ({1}); /observe/health says 503 "
                        + "until it does", name, e.getMessage());
            }
            return HealthCheckResponse.builder().status(false).detail("error", String.valueOf(e.getMessage())).build();
        }
        if (down.compareAndSet(true, false)) {
            LOG.log(Level.INFO, "Ready again: the brain''s {0} answers", name);
        }
        HealthCheckResponse.Builder up = HealthCheckResponse.builder().status(true);
        details.forEach(up::detail);
        return up.build();
    }
}
