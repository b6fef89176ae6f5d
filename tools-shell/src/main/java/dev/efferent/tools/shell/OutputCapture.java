package dev.efferent.tools.shell;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Drains one output stream of a process: keeps the first {@code cap} bytes, counts the rest, and hands each
 * complete line to a listener (for progress) as it arrives.
 */
final class OutputCapture implements Runnable {
    private static final int MAX_LINE = 1024;

    private final InputStream in;
    private final int cap;
    private final Consumer<String> lines;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final StringBuilder line = new StringBuilder();
    private long dropped;
    private volatile boolean done;

    OutputCapture(InputStream in, int cap, Consumer<String> lines) {
        this.in = in;
        this.cap = cap;
        this.lines = lines;
    }

    @Override
    public void run() {
        byte[] buffer = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                synchronized (this) {
                    int keep = Math.max(0, Math.min(n, cap - kept.size()));
                    kept.write(buffer, 0, keep);
                    dropped += n - keep;
                }
                feedLines(buffer, n);
            }
        } catch (IOException e) {
            // The pipe closes under us when the process is killed; what was read so far is the output.
        } finally {
            done = true;
        }
    }

    boolean isDone() {
        return done;
    }

    synchronized String text() {
        return kept.toString(StandardCharsets.UTF_8);
    }

    synchronized long droppedBytes() {
        return dropped;
    }

    private void feedLines(byte[] buffer, int n) {
        // Lines only feed progress messages: a character split across two reads may show as U+FFFD there.
        // The kept output is decoded as a whole.
        String chunk = new String(buffer, 0, n, StandardCharsets.UTF_8);
        for (int i = 0; i < chunk.length(); i++) {
            char c = chunk.charAt(i);
            if (c == '\n') {
                lines.accept(line.toString());
                line.setLength(0);
            } else if (c != '\r' && line.length() < MAX_LINE) {
                line.append(c);
            }
        }
    }
}
