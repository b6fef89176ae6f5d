package dev.efferent.chat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * {@code bin/efferent chat [--brain-url http://127.0.0.1:18789] [--token-file FILE]}: type commands, see replies and
 * checkpoints as they come. The conversation is kept in {@code ~/.efferent/chat-conversation}, so results of
 * tasks started earlier still arrive after a restart of the chat.
 */
public final class ChatMain {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ChatMain() {
    }

    /** Runs the chat until standard input ends; exits 2 on bad options, 1 if the brain cannot be reached. */
    public static void main(String[] args) throws Exception {
        String brain = "http://127.0.0.1:18789";
        String token = System.getenv().getOrDefault("EFFERENT_API_TOKEN", "");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--brain-url" -> brain = value(args, ++i, "--brain-url");
                case "--token-file" -> token = tokenFile(value(args, ++i, "--token-file"));
                case "--token" -> fail("--token is gone: a token on the command line is shown by 'ps' to every user "
                        + "of this machine. Set EFFERENT_API_TOKEN or pass --token-file FILE");
                case "--help", "-h" -> {
                    System.out.println("Usage: efferent chat [--brain-url http://host:18789] [--token-file FILE]\n"
                            + "The token defaults to EFFERENT_API_TOKEN, else ~/.efferent/brain/api-token (made by a brain on this "
                            + "machine). Type /help once connected; Ctrl-D quits.");
                    return;
                }
                default -> fail("unknown option '" + args[i] + "'");
            }
        }
        URI base = URI.create(brain.replaceAll("/+$", ""));
        // A brain on this machine without a configured token keeps the one it made here; it is sent to this
        // machine's brain only, never to one elsewhere.
        token = madeToken(base, token);
        String scheme = "https".equals(base.getScheme()) || "wss".equals(base.getScheme()) ? "wss" : "ws";
        URI socket = URI.create(scheme + "://" + base.getAuthority() + "/ws/console?conversation=" + conversation());
        PrintStream out = System.out;
        CompletableFuture<Void> closed = new CompletableFuture<>();
        ChatScreen screen = ChatScreen.open(out, Path.of(System.getProperty("user.home"), ".efferent",
                "chat-history"));
        WebSocket ws;
        try {
            WebSocket.Builder builder = HttpClient.newHttpClient().newWebSocketBuilder()
                    .connectTimeout(Duration.ofSeconds(10));
            if (!token.isEmpty()) {
                builder.header("Authorization", "Bearer " + token);
            }
            ws = builder.buildAsync(socket, new Printer(screen, closed)).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof WebSocketHandshakeException h && h.getResponse().statusCode() == 401) {
                fail(1, "the brain at " + base + " refused the API token: set EFFERENT_API_TOKEN or pass --token-file");
            }
            fail(1, "cannot reach the brain at " + base + ": " + reason(e.getCause())
                    + ". Is it running (bin/efferent brain)? Another address: --brain-url");
            return;
        }
        screen.println("Connected to " + base + ". Type /help for the commands; ↑ and ↓ for earlier lines; Ctrl-D to "
                + "quit.");
        try (screen) {
            String line;
            while ((line = screen.readLine()) != null && !closed.isDone()) {
                if (!line.isBlank()) {
                    ws.sendText(JSON.createObjectNode().put("type", "say").put("text", line.strip()).toString(), true)
                            .join();
                }
            }
            // Input ended (a pipe, or Ctrl-D): give answers already on their way a moment, then leave.
            Thread.sleep(Long.getLong("efferent.chat.linger-ms", 500));
        }
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye");
    }

    /** {@code token}, or for a brain on this machine without one given, the token that brain made and kept here. */
    static String madeToken(URI base, String token) {
        Path made = Path.of(System.getProperty("user.home"), ".efferent", "brain", "api-token");
        if (token.isEmpty() && isLoopback(base) && Files.isReadable(made)) {
            return tokenFile(made.toString());
        }
        return token;
    }

    private static String conversation() throws IOException {
        Path file = Path.of(System.getProperty("user.home"), ".efferent", "chat-conversation");
        if (Files.exists(file)) {
            String id = Files.readString(file).strip();
            if (id.matches("[A-Za-z0-9-]{1,64}")) {
                return id;
            }
        }
        String id = "terminal-" + UUID.randomUUID().toString().substring(0, 8);
        Files.createDirectories(file.getParent());
        Files.writeString(file, id + "\n");
        return id;
    }

    static boolean isLoopback(URI uri) {
        String host = uri.getHost() == null ? "" : uri.getHost().replaceAll("^\\[|]$", "");
        return host.equals("localhost") || host.matches("127(\\.\\d{1,3}){3}") || host.equals("::1");
    }

    static String tokenFile(String file) {
        try {
            String token = Files.readString(Path.of(file)).strip();
            if (token.isEmpty()) {
                fail("--token-file " + file + " is empty: write the brain's API token into it");
            }
            return token;
        } catch (IOException e) {
            fail("--token-file " + file + " cannot be read: " + e.getMessage());
            return "";
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            fail("option " + option + " needs a value");
        }
        return args[i];
    }

    private static void fail(String message) {
        fail(2, message);
    }

    private static void fail(int status, String message) {
        fail("chat", status, message);
    }

    static void fail(String command, int status, String message) {
        System.err.println("efferent " + command + ": " + message);
        System.exit(status);
    }

    /** Prints the brain's messages; task lists are for the web console and are skipped. */
    private static final class Printer implements WebSocket.Listener {
        private final ChatScreen out;
        private final CompletableFuture<Void> closed;
        private final StringBuilder partial = new StringBuilder();
        /** How much of each streamed reply is printed already. */
        private final Map<String, Integer> streamed = new HashMap<>();

        Printer(ChatScreen out, CompletableFuture<Void> closed) {
            this.out = out;
            this.closed = closed;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    JsonNode m = JSON.readTree(partial.toString());
                    if ("message".equals(m.path("type").asText())) {
                        if ("streamed".equals(m.path("kind").asText())) {
                            stream(m);
                        } else {
                            out.println(m.path("text").asText());
                        }
                    }
                } catch (IOException e) {
                    out.println("(unreadable message from the brain: " + e.getMessage() + ")");
                }
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }

        /** A streamed reply is printed as it grows, on one line that ends when the reply does. */
        private void stream(JsonNode m) {
            String id = m.path("replyId").asText();
            String text = m.path("text").asText();
            int printed = streamed.getOrDefault(id, 0);
            if (m.path("done").asBoolean()) {
                // The last message has the whole text: print what the parts did not.
                out.partial(text.length() > printed ? text.substring(printed) : "");
                out.endPartial();
                streamed.remove(id);
            } else {
                out.partial(text);
                streamed.put(id, printed + text.length());
            }
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            out.println("The brain closed the chat (" + status + (reason.isBlank() ? "" : " " + reason) + ").");
            closed.complete(null);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            out.println("Connection lost: " + reason(error));
            closed.complete(null);
        }
    }

    /** What went wrong, in words: the JDK's connection errors often carry no message (ConnectException: null). */
    static String reason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConnectException) {
                return "nothing answers there (connection refused)";
            }
            if (t instanceof HttpTimeoutException) {
                return "no answer within 10 s";
            }
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return "the name does not resolve";
            }
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }
}
