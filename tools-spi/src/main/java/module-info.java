/**
 * The SPI a tool plugin implements. A {@link dev.efferent.tools.spi.ToolkitProvider}, found by
 * {@link java.util.ServiceLoader}, creates a {@link dev.efferent.tools.spi.Toolkit} of
 * {@link dev.efferent.tools.spi.Tool}s. JDK only: a plugin needs this module (and
 * {@code efferent.plugin.api}, which it brings) and nothing else.
 */
module efferent.tools.spi {
    requires transitive efferent.plugin.api;

    exports dev.efferent.tools.spi;
}
