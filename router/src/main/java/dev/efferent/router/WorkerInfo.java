package dev.efferent.router;

import java.time.Instant;
import java.util.List;

/**
 * A worker as the router knows it.
 *
 * @param id             the worker's persistent id
 * @param name           its human name
 * @param hostname       its host name
 * @param platform       its OS and architecture
 * @param local          the brain's own in-process worker
 * @param online         connected now
 * @param connectedAt    when it last registered
 * @param lastHeartbeat  when it was last heard from
 * @param runningTasks   tasks it runs now
 * @param maxConcurrency how many it may run at once
 * @param loadAverage    its one-minute load average, negative where unknown
 * @param tools          the tools it has
 */
public record WorkerInfo(String id,
                         String name,
                         String hostname,
                         String platform,
                         boolean local,
                         boolean online,
                         Instant connectedAt,
                         Instant lastHeartbeat,
                         int runningTasks,
                         int maxConcurrency,
                         double loadAverage,
                         List<String> tools) {
}
