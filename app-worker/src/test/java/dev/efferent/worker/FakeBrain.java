package dev.efferent.worker;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A brain on loopback that speaks just enough WebSocket (RFC 6455), by hand, for a test to decide every frame,
 * and to fall silent or drop a link the way a killed brain or a dead network does (a real server answers pings
 * by itself, or cannot be made to stop).
 */
final class FakeBrain implements AutoCloseable {
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final ServerSocket server;
    private final boolean answerPings;
    private final AtomicInteger connections = new AtomicInteger();
    private final BlockingQueue<Link> links = new LinkedBlockingQueue<>();

    /** @param answerPings whether new links answer pings (each can stop later, {@link Link#silence()}) */
    FakeBrain(boolean answerPings) throws IOException {
        this.answerPings = answerPings;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("fake-brain-accept").start(this::accept);
    }

    URI url() {
        return URI.create("ws://127.0.0.1:" + server.getLocalPort());
    }

    /** TCP connections accepted so far. */
    int connections() {
        return connections.get();
    }

    /** The next link whose upgrade was answered, waiting up to {@code wait}. */
    Link nextLink(Duration wait) throws InterruptedException {
        Link link = links.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        if (link == null) {
            throw new AssertionError("no worker connected within " + wait.toMillis() + " ms (" + connections()
                    + " connections so far)");
        }
        return link;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.incrementAndGet();
                Thread.ofVirtual().name("fake-brain-link").start(() -> {
                    try {
                        Link link = new Link(socket, answerPings);
                        links.add(link);
                        link.read();
                    } catch (IOException e) {
                        close(socket);
                    }
                });
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        links.forEach(Link::drop);
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    /** One worker's connection, upgraded. */
    static final class Link {
        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;
        private final long acceptedNanos = System.nanoTime();
        private final BlockingQueue<String> texts = new LinkedBlockingQueue<>();
        private final AtomicInteger pings = new AtomicInteger();
        private volatile boolean answerPings;

        Link(Socket socket, boolean answerPings) throws IOException {
            this.socket = socket;
            this.answerPings = answerPings;
            this.in = new DataInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
            handshake();
        }

        private void handshake() throws IOException {
            String key = null;
            for (String line = line(); !line.isEmpty(); line = line()) {
                if (line.toLowerCase(Locale.ROOT).startsWith("sec-websocket-key:")) {
                    key = line.substring(line.indexOf(':') + 1).strip();
                }
            }
            if (key == null) {
                throw new IOException("not a WebSocket upgrade");
            }
            String accept;
            try {
                accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                        .digest((key + GUID).getBytes(StandardCharsets.US_ASCII)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        }

        private String line() throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("the worker closed the connection during the upgrade");
                }
                if (b != '\r') {
                    line.write(b);
                }
            }
            return line.toString(StandardCharsets.ISO_8859_1);
        }

        /** Reads frames until the link ends: text frames are queued, pings answered while it answers them. */
        private void read() throws IOException {
            StringBuilder message = new StringBuilder();
            while (true) {
                int b0 = in.readUnsignedByte();
                int b1 = in.readUnsignedByte();
                long length = b1 & 0x7F;
                if (length == 126) {
                    length = in.readUnsignedShort();
                } else if (length == 127) {
                    length = in.readLong();
                }
                byte[] mask = new byte[4];
                if ((b1 & 0x80) != 0) {
                    in.readFully(mask);
                }
                byte[] payload = new byte[(int) length];
                in.readFully(payload);
                for (int i = 0; i < payload.length; i++) {
                    payload[i] ^= mask[i % 4];
                }
                switch (b0 & 0x0F) {
                    case 0x0, 0x1 -> {
                        message.append(new String(payload, StandardCharsets.UTF_8));
                        if ((b0 & 0x80) != 0) {
                            texts.add(message.toString());
                            message.setLength(0);
                        }
                    }
                    case 0x8 -> {
                        drop();
                        return;
                    }
                    case 0x9 -> {
                        pings.incrementAndGet();
                        if (answerPings) {
                            frame(0xA, payload);
                        }
                    }
                    default -> {
                    }
                }
            }
        }

        /** Sends a text frame. */
        void send(String text) {
            frame(0x1, text.getBytes(StandardCharsets.UTF_8));
        }

        /** The next text frame from the worker, waiting up to {@code wait}. */
        String next(Duration wait) throws InterruptedException {
            String text = texts.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (text == null) {
                throw new AssertionError("no frame from the worker within " + wait.toMillis() + " ms");
            }
            return text;
        }

        /** The next text frame whose {@code type} is {@code type}, skipping others. */
        String next(String type, Duration wait) throws InterruptedException {
            long end = System.nanoTime() + wait.toNanos();
            while (true) {
                String text = next(Duration.ofNanos(Math.max(1_000_000, end - System.nanoTime())));
                if (text.contains("\"type\":\"" + type + "\"")) {
                    return text;
                }
            }
        }

        /** Pings received from the worker. */
        int pings() {
            return pings.get();
        }

        long acceptedNanos() {
            return acceptedNanos;
        }

        /** Stops answering anything: the socket stays open, as with a frozen brain or a dead network. */
        void silence() {
            answerPings = false;
        }

        /** Closes the socket without a WebSocket close, as the kernel does for a killed brain. */
        void drop() {
            close(socket);
        }

        private void frame(int opcode, byte[] payload) {
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            frame.write(0x80 | opcode);
            if (payload.length < 126) {
                frame.write(payload.length);
            } else {
                frame.write(126);
                frame.write(payload.length >> 8);
                frame.write(payload.length & 0xFF);
            }
            frame.writeBytes(payload);
            write(frame.toByteArray());
        }

        private synchronized void write(byte[] bytes) {
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
