package dev.efferent.protocol;

/**
 * {@code worker:ack}, brain to worker, the answer to {@code worker:register}.
 *
 * @param workerId            the worker's id as the brain knows it
 * @param queuedTasks         tasks waiting in the queue that this worker can run
 * @param heartbeatIntervalMs how often the worker must send {@code worker:heartbeat}
 */
public record WorkerAck(String workerId, long queuedTasks, long heartbeatIntervalMs) implements Message {
    public static final String TYPE = "worker:ack";

    public WorkerAck {
        Checks.text(workerId, "workerId");
        Checks.nonNegative(queuedTasks, "queuedTasks");
        Checks.positive(heartbeatIntervalMs, "heartbeatIntervalMs");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
