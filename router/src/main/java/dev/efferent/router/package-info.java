/**
 * Routing of tool calls between the brain, its queue and its workers.
 */
package dev.efferent.router;
