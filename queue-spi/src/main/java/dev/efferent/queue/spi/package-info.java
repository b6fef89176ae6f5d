/**
 * What a task queue provider implements: {@link dev.efferent.queue.spi.TaskQueueProvider}, found by
 * {@link java.util.ServiceLoader} and chosen by name with {@code queue.provider}.
 */
package dev.efferent.queue.spi;
