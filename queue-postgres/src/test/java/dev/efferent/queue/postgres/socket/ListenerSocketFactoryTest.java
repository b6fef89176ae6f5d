package dev.efferent.queue.postgres.socket;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The listener's sockets against a real peer on loopback: pgjdbc's 1 ms look is answered at once, other reads wait. */
class ListenerSocketFactoryTest {
    private final ServerSocket server = server();
    private Socket client;
    private Socket peer;

    private static ServerSocket server() {
        try {
            return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new AssertionError("cannot listen on loopback", e);
        }
    }

    private void connect() throws IOException {
        client = new ListenerSocketFactory().createSocket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        peer = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        try (server) {
            if (client != null) {
                client.close();
            }
            if (peer != null) {
                peer.close();
            }
        }
    }

    @Test
    void aLookWithNothingPendingTimesOutAtOnceAsPgjdbcExpectsAndTheSocketGoesOn() throws Exception {
        connect();
        InputStream in = client.getInputStream();
        client.setSoTimeout(ListenerSocketFactory.PEEK_TIMEOUT_MS);
        assertEquals(0, in.read(new byte[8], 0, 0), "asked for nothing, given nothing");
        // Answered by the socket itself, not by a wait for the millisecond to pass.
        assertEquals(ListenerSocketFactory.NOTHING_PENDING,
                assertThrows(SocketTimeoutException.class, in::read).getMessage());
        // A second read under the same timeout is a layer reading on (TLS, GSS): it waits as a plain socket does.
        assertNotEquals(ListenerSocketFactory.NOTHING_PENDING,
                assertThrows(SocketTimeoutException.class, () -> in.read(new byte[8], 0, 8)).getMessage());
        client.setSoTimeout(ListenerSocketFactory.PEEK_TIMEOUT_MS);
        assertEquals(ListenerSocketFactory.NOTHING_PENDING,
                assertThrows(SocketTimeoutException.class, () -> in.read(new byte[8], 0, 8)).getMessage(),
                "each look answered at once");
        peer.getOutputStream().write(new byte[] {1, 2, 3});
        client.setSoTimeout(10_000);
        byte[] read = in.readNBytes(3);
        assertArrayEquals(new byte[] {1, 2, 3}, read);
    }

    @Test
    void aLookWithAMessagePendingReadsIt() throws Exception {
        connect();
        InputStream in = client.getInputStream();
        peer.getOutputStream().write(new byte[] {'A', 'B'});
        for (int i = 0; i < 1000 && in.available() < 2; i++) {
            Thread.sleep(5);
        }
        client.setSoTimeout(ListenerSocketFactory.PEEK_TIMEOUT_MS);
        assertEquals('A', in.read());
        byte[] rest = new byte[4];
        assertEquals(1, in.read(rest, 0, 4));
        assertEquals('B', rest[0]);
    }

    @Test
    void readsUnderAnyOtherTimeoutWaitForTheData() throws Exception {
        connect();
        InputStream in = client.getInputStream();
        client.setSoTimeout(30_000);
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
            try {
                return in.read();
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        Thread.sleep(100);
        OutputStream out = peer.getOutputStream();
        out.write(7);
        assertEquals(7, read.get(30, TimeUnit.SECONDS));
        client.setSoTimeout(50);
        assertNotEquals(ListenerSocketFactory.NOTHING_PENDING,
                assertThrows(SocketTimeoutException.class, in::read).getMessage(), "the socket's own timeout applies");
    }

    @Test
    void everyWayOfMakingASocketGivesOneThatLooksAtOnce() throws Exception {
        ListenerSocketFactory factory = new ListenerSocketFactory();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        int port = server.getLocalPort();
        List<Connect> ways = List.of(() -> {
                    // As pgjdbc makes its sockets: unconnected, then connected.
                    Socket s = factory.createSocket();
                    s.connect(new InetSocketAddress(loopback, port), 10_000);
                    return s;
                }, () -> factory.createSocket(loopback.getHostAddress(), port),
                () -> factory.createSocket(loopback, port), () -> factory.createSocket(loopback.getHostAddress(), port, loopback, 0),
                () -> factory.createSocket(loopback, port, loopback, 0));
        for (Connect way : ways) {
            try (Socket s = way.socket(); Socket accepted = server.accept()) {
                s.setSoTimeout(ListenerSocketFactory.PEEK_TIMEOUT_MS);
                assertEquals(ListenerSocketFactory.NOTHING_PENDING,
                        assertThrows(SocketTimeoutException.class, () -> s.getInputStream().read()).getMessage());
                accepted.getOutputStream().write(9);
                s.setSoTimeout(10_000);
                assertEquals(9, s.getInputStream().read());
            }
        }
    }

    private interface Connect {
        Socket socket() throws IOException;
    }
}
