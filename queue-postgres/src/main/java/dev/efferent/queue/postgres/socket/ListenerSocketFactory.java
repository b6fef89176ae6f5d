package dev.efferent.queue.postgres.socket;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import javax.net.SocketFactory;

/**
 * The sockets of the queue's listening connection, named to pgjdbc by its {@code socketFactory} property; not for other
 * use.
 * <p>
 * Once it has read the notifications that had arrived, pgjdbc (42.7.4, and its master branch of July 2026) looks for
 * another message pending by reading with a socket timeout of 1 ms ({@code PGStream.hasMessagePending}), and the
 * throttle meant to spare it that look is never set (the look returns early whether it timed out or found bytes), so
 * every {@code getNotifications} waits the whole millisecond before it returns what it read. On these sockets the first
 * read after the timeout is set to 1 ms answers at once: with what has arrived, or, if nothing has, with the timeout
 * pgjdbc expects. Every other read is the socket's own, later reads under that timeout included (a layer reading a
 * frame in parts, such as TLS or GSS encryption, waits for the rest as it would have). The listener sets no 1 ms
 * timeout of its own.
 */
public final class ListenerSocketFactory extends SocketFactory {
    /** The socket timeout pgjdbc uses for its look for a pending message. */
    static final int PEEK_TIMEOUT_MS = 1;
    /** What a look that found nothing says. */
    static final String NOTHING_PENDING = "nothing pending (a look for a next message, answered at once)";

    /** As pgjdbc instantiates it. */
    public ListenerSocketFactory() {
    }

    @Override
    public Socket createSocket() {
        return new PeekSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    private static Socket connected(InetSocketAddress remote, InetSocketAddress local) throws IOException {
        Socket socket = new PeekSocket();
        try {
            if (local != null) {
                socket.bind(local);
            }
            socket.connect(remote);
            return socket;
        } catch (IOException | RuntimeException e) {
            try {
                socket.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** A plain socket whose first read after its timeout is set to 1 ms does not wait. */
    static final class PeekSocket extends Socket {
        private volatile boolean look;
        private InputStream input;

        @Override
        public void setSoTimeout(int timeout) throws SocketException {
            super.setSoTimeout(timeout);
            look = timeout == PEEK_TIMEOUT_MS;
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (input == null) {
                input = new PeekInput(super.getInputStream());
            }
            return input;
        }

        private final class PeekInput extends FilterInputStream {
            PeekInput(InputStream in) {
                super(in);
            }

            @Override
            public int read() throws IOException {
                peek();
                return super.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len > 0) {
                    peek();
                }
                return super.read(b, off, len);
            }

            private void peek() throws IOException {
                if (look) {
                    look = false;
                    if (in.available() == 0) {
                        throw new SocketTimeoutException(NOTHING_PENDING);
                    }
                }
            }
        }
    }
}
