package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A web page in the user's browser must not reach the brain: cross-site requests, forms, DNS rebinding and
 * cross-site WebSockets are refused, with or without an API token; the brain's own pages and configured names
 * still work. Requests are written by hand on a socket so that Host and Origin are exactly what a browser sends.
 */
class BrowserGuardTest extends BrainFixture {
    private static final String EVIL = "http://evil.example";

    /** A raw HTTP/1.1 exchange: the status line's code, the headers (lower-case names) and the body. */
    record Raw(int status, Map<String, String> headers, String body) {
    }

    Raw raw(String method, String path, Map<String, String> headers, String body) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Host", "127.0.0.1:" + brain.port());
        all.putAll(headers);
        all.put("Connection", "close");
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            all.put("Content-Length", String.valueOf(content.length));
        }
        StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
        all.forEach((k, v) -> request.append(k).append(": ").append(v).append("\r\n"));
        request.append("\r\n");
        try (Socket socket = new Socket("127.0.0.1", brain.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.write(content);
            out.flush();
            InputStream in = socket.getInputStream();
            String response = readHead(in);
            String[] lines = response.split("\r\n");
            Map<String, String> responseHeaders = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    responseHeaders.put(lines[i].substring(0, colon).strip().toLowerCase(), lines[i].substring(colon + 1).strip());
                }
            }
            String rest = "";
            if (!lines[0].contains(" 101 ")) {
                int length = Integer.parseInt(responseHeaders.getOrDefault("content-length", "-1"));
                rest = length >= 0 ? new String(in.readNBytes(length), StandardCharsets.UTF_8)
                        : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            return new Raw(Integer.parseInt(lines[0].split(" ")[1]), responseHeaders, rest);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** The configured token, or none at all: an attacker's page has none, so requests go without it. */
    private Map<String, String> auth(boolean withToken) {
        return withToken ? Map.of("Authorization", "Bearer " + TOKEN) : Map.of();
    }

    private Map<String, String> with(Map<String, String> base, String... pairs) {
        Map<String, String> all = new LinkedHashMap<>(base);
        for (int i = 0; i < pairs.length; i += 2) {
            all.put(pairs[i], pairs[i + 1]);
        }
        return all;
    }

    private Map<String, String> upgrade(String origin) {
        return Map.of("Upgrade", "websocket", "Connection", "Upgrade", "Sec-WebSocket-Version", "13",
                "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==", "Origin", origin);
    }

    @ParameterizedTest(name = "token configured: {0}")
    @ValueSource(booleans = {true, false})
    void crossSiteRequestsAreRefusedWithAndWithoutAToken(boolean withToken) throws IOException {
        // Without a configured token, the brain makes one: pages still cannot get in, tokens or not.
        startBrain(false, withToken ? Map.of() : Map.of("api.token", "", "brain.state-dir", dir.resolve("state").toString()));
        // Inside the tool root, so the shell sandbox would let it happen: only the guard stands in the way.
        Path pwned = brainRoot().resolve("pwned");
        String attack = "{\"tool\":\"run_shell\",\"params\":{\"command\":\"touch " + pwned + "\"}}";
        Map<String, String> a = auth(withToken);

        Raw crossOrigin = raw("POST", "/api/v1/tasks?wait=5", with(a, "Origin", EVIL, "Content-Type", "text/plain"),
                attack);
        assertEquals(403, crossOrigin.status(), crossOrigin.body());
        assertTrue(crossOrigin.body().contains("Origin 'http://evil.example' may not use this brain"), crossOrigin.body());

        Raw form = raw("POST", "/api/v1/tasks?wait=5", with(a, "Origin", EVIL,
                "Content-Type", "application/x-www-form-urlencoded"), "tool=run_shell");
        assertEquals(403, form.status(), form.body());

        Raw rebinding = raw("GET", "/api/v1/workers", with(a, "Host", "rebind.evil.example:" + brain.port()), null);
        assertEquals(403, rebinding.status(), rebinding.body());
        assertTrue(rebinding.body().contains("Host 'rebind.evil.example:" + brain.port() + "' is not this brain's name"),
                rebinding.body());
        assertEquals(403, raw("GET", "/", Map.of("Host", "rebind.evil.example"), null).status());
        assertEquals(403, raw("POST", "/api/v1/tasks", with(a, "Host", "rebind.evil.example",
                "Content-Type", "application/json"), attack).status());

        Raw socket = raw("GET", "/ws/console", upgrade(EVIL), null);
        assertEquals(403, socket.status(), socket.body());
        assertEquals(403, raw("GET", "/ws/console", with(upgrade("null")), null).status());

        // The brain's own page, and a client that is not a browser, still get in.
        Raw sameOriginText = raw("POST", "/api/v1/tasks", with(a, "Origin", "http://127.0.0.1:" + brain.port(),
                "Content-Type", "text/plain"), attack);
        assertEquals(415, sameOriginText.status(), sameOriginText.body());
        assertTrue(sameOriginText.body().contains("need 'Content-Type: application/json'"), sameOriginText.body());
        assertFalse(Files.exists(pwned), "no refused request ran its command");

        String token = withToken ? TOKEN : Files.readString(dir.resolve("state/api-token")).strip();
        assertEquals(401, raw("POST", "/api/v1/tasks", with(Map.of(), "Content-Type", "application/json"), attack)
                .status(), "no brain is open without a token");
        Raw own = raw("POST", "/api/v1/tasks?wait=10", with(Map.of("Authorization", "Bearer " + token), "Origin",
                "http://127.0.0.1:" + brain.port(),
                "Content-Type", "application/json; charset=utf-8"), attack);
        assertEquals(200, own.status(), own.body());
        assertTrue(Files.exists(pwned));
        assertEquals(101, raw("GET", "/ws/console", upgrade("http://127.0.0.1:" + brain.port()), null).status());
    }

    @Test
    void theConsoleIsServedWithAStrictContentSecurityPolicy() {
        startBrain(false, Map.of());
        Raw page = raw("GET", "/", Map.of(), null);
        assertEquals(200, page.status());
        String csp = page.headers().get("content-security-policy");
        assertTrue(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'")
                && csp.contains("default-src 'none'"), csp);
        assertEquals("DENY", page.headers().get("x-frame-options"));
        assertEquals("nosniff", page.headers().get("x-content-type-options"));
        assertTrue(page.body().contains("<script src=\"console.js\"></script>"), "the console has no inline script");
    }

    @Test
    void configuredNamesAndOriginsAreAllowed() {
        startBrain(false, Map.of("server.allowed-hosts", "brain.example.com, other.example",
                "server.allowed-origins", "https://console.example"));
        Map<String, String> a = auth(true);
        assertEquals(200, raw("GET", "/api/v1/workers", with(a, "Host", "brain.example.com:18789"), null).status());
        assertEquals(200, raw("GET", "/api/v1/workers", with(a, "Host", "[::1]:" + brain.port()), null).status());
        assertEquals(200, raw("GET", "/api/v1/workers", with(a, "Host", "localhost"), null).status());
        assertEquals(200, raw("GET", "/api/v1/workers", with(a, "Origin", "https://console.example"), null).status());
        assertEquals(403, raw("GET", "/api/v1/workers", with(a, "Origin", "https://console.example.evil"), null)
                .status());
        assertEquals(403, raw("GET", "/api/v1/workers", with(a, "Host", "brain.example.com.evil"), null).status());
    }

    @Test
    void aCallerCannotNameTheConversationItsResultsGoTo() {
        startBrain(false, Map.of());
        JsonNode refused = call("POST", "/api/v1/tasks", "{\"tool\":\"stat\",\"params\":{\"path\":\".\"},"
                + "\"requester\":\"console:someone-else\"}", 400);
        assertTrue(refused.path("error").asText().startsWith("field 'requester' is not accepted"), refused.toString());
    }

    @Test
    void theConsoleSocketWantsTheTokenInItsFirstFrameNotInTheUrl() throws Exception {
        startBrain(false, Map.of());
        URI uri = URI.create("ws://127.0.0.1:" + brain.port() + "/ws/console?conversation=guard-test");

        RawWorker wrong = RawWorker.open(uri, null);
        wrong.send("{\"type\":\"say\",\"text\":\"/shell id\"}");
        assertEquals(1008, wrong.closed.get(10, TimeUnit.SECONDS));
        assertTrue(wrong.frames.isEmpty(), "nothing is said to a connection without the token: " + wrong.frames);

        RawWorker inUrl = RawWorker.open(URI.create(uri + "&token=" + TOKEN), null);
        inUrl.send("{\"type\":\"say\",\"text\":\"/help\"}");
        assertEquals(1008, inUrl.closed.get(10, TimeUnit.SECONDS), "a token in the URL is not accepted");

        RawWorker right = RawWorker.open(uri, null);
        right.send("{\"type\":\"auth\",\"token\":\"" + TOKEN + "\"}");
        assertEquals("hello", right.next("hello").path("type").asText());
        right.socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").join();

        RawWorker header = RawWorker.open(uri, TOKEN);
        assertEquals("hello", header.next("hello").path("type").asText());
    }

    @Test
    void aConsoleSocketThatNeverSendsTheTokenIsClosed() throws Exception {
        startBrain(false, Map.of());
        RawWorker silent = RawWorker.open(URI.create("ws://127.0.0.1:" + brain.port() + "/ws/console"), null);
        assertEquals(1008, silent.closed.get(20, TimeUnit.SECONDS));
        assertTrue(silent.frames.isEmpty(), silent.frames.toString());
    }
}
