/**
 * Plugin lookup over {@link java.util.ServiceLoader}: named selection, duplicate detection and diagnostics
 * that name the module at fault.
 */
package dev.efferent.core.plugin;
