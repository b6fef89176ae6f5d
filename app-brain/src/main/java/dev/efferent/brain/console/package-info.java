/**
 * The web console: a built-in chat channel served by the brain at {@code /}, with live task and worker lists
 * over the {@code /ws/console} WebSocket.
 */
package dev.efferent.brain.console;
