package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The example toolkit, built on its own, dropped into a worker's plugins directory and called through the brain. */
class ThirdPartyPluginTest extends SystemFixture {

    @Test
    void aDroppedInToolkitRunsWithoutRebuildingEfferent() throws Exception {
        Path jar = Path.of(System.getProperty("efferent.test.hello.jar"));
        assertTrue(Files.isRegularFile(jar), "build examples/hello-toolkit first: " + jar);
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Files.copy(jar, plugins.resolve(jar.getFileName()));

        Launched brain = brain("brain", Map.of());
        worker("laptop", dir.resolve("laptop"), List.of(brain), "--plugins-dir", plugins.toString());
        awaitWorkerOnline(brain, "laptop", 60);

        JsonNode tool = null;
        for (JsonNode t : call(brain, "GET", "/api/v1/tools", null, 200).path("tools")) {
            if (t.path("name").asText().equals("hello")) {
                tool = t;
            }
        }
        assertTrue(tool != null, "the brain lists the plugin's tool");
        assertTrue(tool.path("origin").asText().startsWith("com.example.hello 1.0.0 ("), tool.toString());
        assertTrue(tool.path("origin").asText().endsWith("hello-toolkit-1.0.0.jar)"), tool.toString());

        JsonNode done = call(brain, "POST", "/api/v1/tasks?wait=60",
                "{\"tool\":\"hello\",\"params\":{\"name\":\"Ada\"}}", 200);
        assertEquals("Hello, Ada!", done.path("output").asText());
        assertEquals("laptop", done.path("runningOn").asText());
    }

    @Test
    void aBrokenPluginStopsTheWorkerWithTheJarAndTheCause() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Path broken = Files.write(plugins.resolve("broken.jar"), new byte[]{'n', 'o', 't', ' ', 'a', ' ', 'j', 'a', 'r'});
        Launched brain = brain("brain", Map.of());
        Launched worker = worker("laptop", dir.resolve("laptop"), List.of(brain), "--plugins-dir", plugins.toString());
        assertTrue(worker.process().waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, worker.process().exitValue());
        assertTrue(worker.output().contains("efferent worker: plugin " + broken + " cannot be read"), worker.output());
    }
}
