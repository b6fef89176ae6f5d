/**
 * The SPI a language model provider implements: {@link dev.efferent.model.spi.ModelProvider} opens a
 * {@link dev.efferent.model.spi.Model}, which takes a conversation and a tool list and streams back text and tool
 * calls. JDK only.
 */
module efferent.model.spi {
    requires transitive efferent.plugin.api;

    exports dev.efferent.model.spi;
}
