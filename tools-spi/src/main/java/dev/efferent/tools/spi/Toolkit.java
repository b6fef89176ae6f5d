package dev.efferent.tools.spi;

import java.util.List;

/** A named set of tools that share configuration and resources (a browser, a connection pool). */
public interface Toolkit extends AutoCloseable {

    /** The toolkit's name, the same as its provider's. */
    String name();

    /** The tools, each with a name unique across every loaded toolkit. */
    List<Tool> tools();

    /**
     * Asks to be told when {@link #tools()} or a tool's {@link Tool#available()} changes, e.g. when a server behind
     * the toolkit restarts or lists new tools; the host then reads {@link #tools()} again and tells the brain. A
     * toolkit whose tools never change ignores it, as the default does. {@code changed} may be called from any
     * thread and returns quickly.
     */
    default void onChange(Runnable changed) {
    }

    /** Releases the toolkit's resources when the host shuts down. The default does nothing. */
    @Override
    default void close() {
    }
}
