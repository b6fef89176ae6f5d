/** Loads and creates the chat channel plugins ({@code efferent.channel.spi}) the configuration enables. */
package dev.efferent.core.channel;
