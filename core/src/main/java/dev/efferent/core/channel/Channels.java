package dev.efferent.core.channel;

import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.ChannelProvider;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.plugin.PluginException;
import dev.efferent.core.plugin.PluginLayers;
import dev.efferent.core.plugin.PluginRegistry;
import io.helidon.config.Config;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Creates the channel plugins the configuration enables ({@code channels.<name>.enabled: true}). */
public final class Channels {
    private static final System.Logger LOG = System.getLogger(Channels.class.getName());

    private Channels() {
    }

    /** The channel providers on the module path. */
    public static PluginRegistry.Builder<ChannelProvider> providers() {
        return PluginRegistry.<ChannelProvider>builder("channel", ChannelProvider::name)
                .discover(ServiceLoader.load(ChannelProvider.class));
    }

    /** The channel providers on the module path and in the plugins' layers. */
    public static PluginRegistry.Builder<ChannelProvider> providers(PluginLayers plugins, boolean failOnError) {
        return PluginRegistry.<ChannelProvider>builder("channel", ChannelProvider::name)
                .discover(plugins.providers(ChannelProvider.class, ServiceLoader.load(ChannelProvider.class), failOnError))
                .failOnError(failOnError);
    }

    /**
     * Creates every enabled channel.
     *
     * @throws PluginException if an enabled channel is missing or fails to start
     */
    public static List<Channel> create(Config config, PluginRegistry<ChannelProvider> providers) {
        List<Channel> channels = new ArrayList<>();
        Config node = config.get("channels");
        for (Config channel : node.asNodeList().orElse(List.of())) {
            String name = channel.name();
            if (!channel.get("enabled").asBoolean().orElse(false)) {
                continue;
            }
            ChannelProvider provider = providers.select(name);
            try {
                channels.add(provider.create(new ConfigSettings(channel)));
            } catch (RuntimeException e) {
                channels.forEach(Channel::close);
                throw new PluginException("channel '" + name + "' from module "
                        + providers.info(name).describeModule() + " failed to start: " + e.getMessage(), e);
            }
            LOG.log(Level.INFO, "Channel ''{0}'' enabled", name);
        }
        return channels;
    }
}
