package dev.efferent.protocol;

/**
 * {@code worker:ack}, brain to worker, the answer to {@code worker:register}.
 *
 * @param workerId            the worker's id as the brain knows it
 * @param queuedTasks         tasks waiting in the queue that this worker can run
 * @param heartbeatIntervalMs how often the worker must send {@code worker:heartbeat}
 * @param maxFrameBytes       the largest frame the brain accepts, so that the worker sends none larger; 0 where
 *                            a brain did not say (an older one)
 */
public record WorkerAck(String workerId, long queuedTasks, long heartbeatIntervalMs, int maxFrameBytes)
        implements Message {
    public static final String TYPE = "worker:ack";

    public WorkerAck {
        Checks.text(workerId, "workerId");
        Checks.nonNegative(queuedTasks, "queuedTasks");
        Checks.positive(heartbeatIntervalMs, "heartbeatIntervalMs");
        Checks.nonNegative(maxFrameBytes, "maxFrameBytes");
    }

    /** An ack that does not state the brain's frame limit. */
    public WorkerAck(String workerId, long queuedTasks, long heartbeatIntervalMs) {
        this(workerId, queuedTasks, heartbeatIntervalMs, 0);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
