package dev.efferent.protocol;

/**
 * {@code worker:heartbeat}, worker to brain, every heartbeat interval.
 *
 * @param uptimeSeconds seconds since the worker process started
 * @param loadAverage   the machine's one-minute load average, or a negative value where unknown
 * @param activeTasks   tasks the worker is running now
 */
public record WorkerHeartbeat(long uptimeSeconds, double loadAverage, int activeTasks) implements Message {
    public static final String TYPE = "worker:heartbeat";

    public WorkerHeartbeat {
        Checks.nonNegative(uptimeSeconds, "uptimeSeconds");
        Checks.nonNegative(activeTasks, "activeTasks");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
