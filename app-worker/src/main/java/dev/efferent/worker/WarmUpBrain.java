package dev.efferent.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.WorkerAck;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A stand-in brain on loopback for {@code --warm-up}: it takes one WebSocket upgrade, reads the registration and
 * answers with an acknowledgement, so that a warm-up loads the classes of a real connection without reaching the
 * real brain (no secret spent, no pairing code used, nothing in its logs); then a call of a tool nobody has, whose
 * refusal shows the acknowledgement was taken in. It speaks only as much of RFC 6455 as
 * that exchange needs.
 */
final class WarmUpBrain implements AutoCloseable {
    private static final String ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final ServerSocket server;
    private final ProtocolCodec codec;
    private final CountDownLatch acknowledged = new CountDownLatch(1);

    WarmUpBrain(ProtocolCodec codec) throws IOException {
        this.codec = codec;
        this.server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("efferent-warm-up-brain").start(this::serve);
    }

    URI uri() {
        return URI.create("ws://127.0.0.1:" + server.getLocalPort());
    }

    /** Whether the worker took its acknowledgement in and answered a call within {@code millis}. */
    boolean awaitAcknowledged(long millis) throws InterruptedException {
        return acknowledged.await(millis, TimeUnit.MILLISECONDS);
    }

    private void serve() {
        try (Socket socket = server.accept()) {
            socket.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            String key = null;
            for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
                if (line.toLowerCase(Locale.ROOT).startsWith("sec-websocket-key:")) {
                    key = line.substring(line.indexOf(':') + 1).strip();
                }
            }
            if (key == null) {
                return;
            }
            out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: " + accept(key) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            readFrame(in);
            frame(out, 0x81, codec.encode(new WorkerAck("warm-up", 0, 60_000, codec.maxFrameBytes()))
                    .getBytes(StandardCharsets.UTF_8));
            // A call of a tool no worker has: the worker's answer (a refusal) is the sign it took the ack in.
            frame(out, 0x81, codec.encode(new TaskDispatch("warm-up", "warm-up-no-such-tool",
                    JsonNodeFactory.instance.objectNode(), 5, 1_000, 1)).getBytes(StandardCharsets.UTF_8));
            readFrame(in);
            acknowledged.countDown();
            // Until the worker closes: its close frame, or the end of the stream.
            while (readFrame(in) != 0x8) {
                // a heartbeat or a ping: nothing to answer in a warm-up
            }
        } catch (IOException | NoSuchAlgorithmException e) {
            // The warm-up reports what it missed by not being acknowledged.
        }
    }

    private static String accept(String key) throws NoSuchAlgorithmException {
        byte[] digest = MessageDigest.getInstance("SHA-1").digest((key + ACCEPT_GUID).getBytes(StandardCharsets.US_ASCII));
        return Base64.getEncoder().encodeToString(digest);
    }

    private static String readLine(DataInputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("the connection ended in the upgrade request");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    /** Reads one frame and returns its opcode; the payload is skipped. */
    private static int readFrame(DataInputStream in) throws IOException {
        int first = in.readUnsignedByte();
        int second = in.readUnsignedByte();
        long length = second & 0x7f;
        if (length == 126) {
            length = in.readUnsignedShort();
        } else if (length == 127) {
            length = in.readLong();
        }
        long skip = length + ((second & 0x80) != 0 ? 4 : 0);
        in.skipNBytes(skip);
        return first & 0x0f;
    }

    private static void frame(OutputStream out, int head, byte[] payload) throws IOException {
        out.write(head);
        if (payload.length < 126) {
            out.write(payload.length);
        } else if (payload.length < 65_536) {
            out.write(126);
            out.write(payload.length >>> 8);
            out.write(payload.length & 0xff);
        } else {
            out.write(127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                out.write((int) ((long) payload.length >>> shift) & 0xff);
            }
        }
        out.write(payload);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
