/**
 * Chat channels: a {@link dev.efferent.channel.spi.ChannelProvider} creates a {@link dev.efferent.channel.spi.Channel},
 * which delivers what people write to an {@link dev.efferent.channel.spi.Inbox} and sends
 * {@link dev.efferent.channel.spi.OutgoingMessage}s to {@link dev.efferent.channel.spi.Conversation}s.
 */
package dev.efferent.channel.spi;
