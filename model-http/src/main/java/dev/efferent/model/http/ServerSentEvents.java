package dev.efferent.model.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Reads a {@code text/event-stream}: events with a name and data, comments ignored, multi-line data joined. */
public final class ServerSentEvents {
    private ServerSentEvents() {
    }

    /** Receives each event; returns false to stop reading. */
    @FunctionalInterface
    public interface Handler {
        boolean event(String name, String data) throws IOException;
    }

    /** Reads {@code in} until it ends or {@code handler} says stop. */
    public static void read(InputStream in, Handler handler) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        String name = "message";
        StringBuilder data = null;
        for (String line; (line = lines.readLine()) != null; ) {
            if (line.isEmpty()) {
                if (data != null && !handler.event(name, data.toString())) {
                    return;
                }
                name = "message";
                data = null;
                continue;
            }
            if (line.startsWith(":")) {
                continue;
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (field) {
                case "event" -> name = value;
                case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                default -> {
                    // id and retry mean nothing to a model stream.
                }
            }
        }
        if (data != null) {
            handler.event(name, data.toString());
        }
    }
}
