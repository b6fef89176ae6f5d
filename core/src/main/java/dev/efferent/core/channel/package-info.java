/**
 * The chat channel SPI: a {@link dev.efferent.core.channel.ChannelProvider}, found by
 * {@link java.util.ServiceLoader}, creates a {@link dev.efferent.core.channel.Channel} that turns a chat service
 * into {@link dev.efferent.core.channel.Conversation}s, incoming text and outgoing messages.
 */
package dev.efferent.core.channel;
