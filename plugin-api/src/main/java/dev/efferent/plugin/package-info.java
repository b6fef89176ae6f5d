/** A plugin's settings: string values by dotted key, parsed the same way by every SPI. */
package dev.efferent.plugin;
