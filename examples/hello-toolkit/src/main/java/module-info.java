/**
 * An example Efferent toolkit with one tool, {@code hello}.
 *
 * @provides dev.efferent.tools.spi.ToolkitProvider
 */
module com.example.hello {
    requires efferent.tools.spi;

    provides dev.efferent.tools.spi.ToolkitProvider with com.example.hello.HelloToolkitProvider;
}
