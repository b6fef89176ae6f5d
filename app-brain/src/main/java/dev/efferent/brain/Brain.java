package dev.efferent.brain;

import dev.efferent.router.Router;
import io.helidon.webserver.WebServer;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A running brain: its web server, its router, and the stack of everything its {@link BrainAssembly} opened, which
 * {@link #close()} closes in reverse.
 */
final class Brain implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Brain.class.getName());

    private final WebServer server;
    private final Router router;
    private final Closers closers;

    Brain(WebServer server, Router router, Closers closers) {
        this.server = server;
        this.router = router;
        this.closers = closers;
    }

    /**
     * How another machine reaches this brain's worker socket, for the command printed with a pairing code:
     * {@code brain.public-url} if set, else this machine's name when listening on every interface.
     */
    static String workerUrl(BrainSettings settings, int port) {
        if (settings.publicUrl().isPresent()) {
            return settings.publicUrl().get().replaceFirst("^(?i)http", "ws").replaceAll("/+$", "");
        }
        String host = settings.host();
        if (host.equals("0.0.0.0") || host.equals("::")) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "<this-brain's-address>";
            }
        }
        return "ws://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    static String consoleHost(String host) {
        return host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host.contains(":") ? "[" + host + "]" : host;
    }

    int port() {
        return server.port();
    }

    @Override
    public void close() {
        try {
            LOG.log(Level.INFO, "Brain stopping: {0} workers online, {1} tasks queued", router.workersOnline(),
                    router.queuedCount());
        } catch (RuntimeException e) {
            LOG.log(Level.INFO, "Brain stopping (the queue cannot be counted: {0})", e.getMessage());
        }
        closers.close();
        LOG.log(Level.INFO, "Brain stopped");
    }
}
