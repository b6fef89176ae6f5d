package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** REST → brain → the worker that has the browser → browser_navigate, then browser_text in the same session. */
class BrowserThroughTheStackTest extends SystemFixture {

    @Test
    void browserTasksGoOnlyToTheWorkerThatHasTheBrowser() throws Exception {
        HttpServer site = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        site.createContext("/", ex -> {
            byte[] page = "<html><head><title>Garden</title></head><body><h1>Tomatoes need water</h1></body></html>"
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/html");
            ex.sendResponseHeaders(200, page.length);
            ex.getResponseBody().write(page);
            ex.close();
        });
        site.start();
        try {
            Launched brain = brain("brain", Map.of());
            worker("plain", dir.resolve("plain"), List.of(brain));
            worker("desktop", dir.resolve("desktop"), List.of(brain), List.of("browser"), Map.of());
            awaitWorkerOnline(brain, "plain", 60);
            awaitWorkerOnline(brain, "desktop", 60);
            for (JsonNode w : call(brain, "GET", "/api/v1/workers", null, 200).path("workers")) {
                boolean hasBrowser = w.path("tools").toString().contains("browser_navigate");
                assertEquals(w.path("name").asText().equals("desktop"), hasBrowser, w.toString());
            }

            String url = "http://127.0.0.1:" + site.getAddress().getPort() + "/";
            JsonNode opened = call(brain, "POST", "/api/v1/tasks?wait=120", "{\"tool\":\"browser_navigate\","
                    + "\"params\":{\"url\":\"" + url + "\"}}", 200);
            assertEquals("completed", opened.path("status").asText(), opened.toString());
            assertEquals("desktop", opened.path("runningOn").asText());
            assertEquals("Garden", opened.path("result").path("structuredContent").path("title").asText());

            JsonNode text = call(brain, "POST", "/api/v1/tasks?wait=120", "{\"tool\":\"browser_text\",\"params\":{}}",
                    200);
            assertEquals("Tomatoes need water", text.path("output").asText());
            assertEquals("desktop", text.path("runningOn").asText());

            JsonNode elsewhere = call(brain, "POST", "/api/v1/tasks", "{\"tool\":\"browser_text\",\"params\":{},"
                    + "\"worker\":\"plain\"}", 202);
            assertTrue(elsewhere.path("offline").asBoolean() || !"running".equals(elsewhere.path("status").asText()));
            assertFalse("plain".equals(elsewhere.path("runningOn").asText()), "never sent to a worker without it");
        } finally {
            site.stop(0);
        }
    }
}
