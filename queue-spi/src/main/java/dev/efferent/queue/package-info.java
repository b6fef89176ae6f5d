/**
 * The durable task queue as its clients see it: {@link dev.efferent.queue.TaskQueue}, {@link dev.efferent.queue.Task}
 * and its lifecycle {@link dev.efferent.queue.TaskStatus}.
 */
package dev.efferent.queue;
