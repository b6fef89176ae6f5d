/**
 * Configuration: a YAML file overlaid by {@code EFFERENT_*} environment variables, read through Helidon
 * Config, and its adaptation to the SPIs' small {@code Settings} view.
 */
package dev.efferent.core.config;
