package dev.efferent.tools.spi;

import java.util.List;

/** A named set of tools that share configuration and resources (a browser, a connection pool). */
public interface Toolkit extends AutoCloseable {

    /** The toolkit's name, the same as its provider's. */
    String name();

    /** The tools, each with a name unique across every loaded toolkit. */
    List<Tool> tools();

    /** Releases the toolkit's resources when the host shuts down. The default does nothing. */
    @Override
    default void close() {
    }
}
