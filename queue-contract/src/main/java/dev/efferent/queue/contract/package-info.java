/**
 * The task queue contract suite, written once and run against every provider.
 */
package dev.efferent.queue.contract;
