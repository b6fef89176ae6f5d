/**
 * The kernel both roles share: the plugin registry, configuration, the tool catalogue and the local tool
 * executor.
 *
 * @uses dev.efferent.tools.spi.ToolkitProvider
 * @uses dev.efferent.channel.spi.ChannelProvider
 */
module efferent.core {
    requires transitive efferent.tools.spi;
    requires transitive efferent.channel.spi;
    requires transitive efferent.protocol;
    requires transitive io.helidon.config;
    requires org.yaml.snakeyaml;
    requires transitive com.fasterxml.jackson.databind;
    requires com.networknt.schema;
    requires java.logging;
    requires java.management;

    exports dev.efferent.core.channel;
    exports dev.efferent.core.config;
    exports dev.efferent.core.plugin;
    exports dev.efferent.core.tools;

    uses dev.efferent.tools.spi.ToolkitProvider;
    uses dev.efferent.channel.spi.ChannelProvider;
}
