package dev.efferent.router;

import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.plugin.PluginException;
import dev.efferent.queue.NewTask;
import dev.efferent.queue.TaskQueue;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class QueuesTest {

    @Test
    void memoryIsTheDefaultProviderFoundOnTheModulePath() {
        Config config = ConfigLoader.load(Map.of(), Map.of());
        try (TaskQueue queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC())) {
            queue.enqueue(NewTask.builder("t", "{}").build());
            assertEquals(1, queue.countQueued());
        }
    }

    @Test
    void unknownProviderNameListsTheAvailableOnes() {
        Config config = ConfigLoader.load(Map.of("EFFERENT_QUEUE_PROVIDER", "redis"), Map.of());
        PluginException e = assertThrows(PluginException.class,
                () -> Queues.open(config, Queues.providers().build(), Clock.systemUTC()));
        assertEquals("no queue provider named 'redis'; available: [memory]", e.getMessage());
    }
}
