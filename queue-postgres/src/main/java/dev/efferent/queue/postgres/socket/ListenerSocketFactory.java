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
 * After each notification it reads, pgjdbc (42.7.4, and its master as of 2026-11) looks for another message pending
 * by reading with a socket timeout of 1 ms ({@code PGStream.hasMessagePending}); the throttle meant to spare it that
 * wait is only set when the look finds the stream ended, so every notification waits the whole millisecond before
 * {@code getNotifications} returns it. A read through these sockets with that 1 ms timeout answers at once: with what
 * is pending, or, if nothing is, with the timeout pgjdbc expects. Every other read is the socket's own.
 */
public final class ListenerSocketFactory extends SocketFactory {
    /** The socket timeout pgjdbc uses for its look for a pending message, and for nothing else. */
    static final int PEEK_TIMEOUT_MS = 1;

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

    /** A plain socket whose reads under the 1 ms timeout do not wait. */
    static final class PeekSocket extends Socket {
        private volatile int timeout;
        private InputStream input;

        @Override
        public void setSoTimeout(int timeout) throws SocketException {
            super.setSoTimeout(timeout);
            this.timeout = timeout;
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
                if (timeout == PEEK_TIMEOUT_MS && in.available() == 0) {
                    throw new SocketTimeoutException("no message pending");
                }
            }
        }
    }
}
