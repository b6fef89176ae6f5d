/**
 * The SPI a chat channel plugin implements. A {@link dev.efferent.channel.spi.ChannelProvider}, found by
 * {@link java.util.ServiceLoader}, creates a {@link dev.efferent.channel.spi.Channel} that turns a chat service into
 * {@link dev.efferent.channel.spi.Conversation}s, incoming text and outgoing messages. JDK only: a channel plugin
 * needs this module (and {@code efferent.plugin.api}, which it brings) and nothing else.
 */
module efferent.channel.spi {
    requires transitive efferent.plugin.api;

    exports dev.efferent.channel.spi;
}
