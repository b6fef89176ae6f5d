package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.core.plugin.PluginException;
import dev.efferent.plugin.Settings;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.spi.TaskQueueProvider;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import io.helidon.health.HealthCheckResponse;
import io.helidon.config.Config;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The brain as its assembly builds it: readiness that asks the queue, features turned off, a failed start undone. */
class BrainAssemblyTest extends BrainFixture {
    private final Unreachable queue = new Unreachable();

    @Test
    void readinessGoesDownWhileTheQueueCannotBeReachedAndComesBack() {
        brain = new BrainAssembly(config(false, 0, Map.of("queue.provider", Unreachable.NAME)),
                Queues.providers().add(queue).build(), BrainAssembly.features().build()).start();
        HttpResponse<String> ready = request("GET", "/observe/health/ready", null, TOKEN);
        assertEquals(200, ready.statusCode(), ready.body());

        queue.reachable.set(false);
        HttpResponse<String> down = request("GET", "/observe/health/ready", null, TOKEN);
        assertEquals(503, down.statusCode(), down.body());
        assertTrue(down.body().contains("the database is gone"), down.body());
        assertEquals(503, request("GET", "/observe/health", null, TOKEN).statusCode());
        assertEquals(200, request("GET", "/observe/health/live", null, null).statusCode(), "alive all the same");

        queue.reachable.set(true);
        assertEquals(200, request("GET", "/observe/health/ready", null, TOKEN).statusCode());
    }

    @Test
    void readinessGoesDownAsTheBrainStopsBeforeItsServerDoes() {
        Router router = Router.start(RouterSettings.defaults(), Queues.providers().build().select("memory")
                .open(Settings.empty(), Clock.systemUTC()), Stores.inMemory(), new ProtocolCodec(),
                Clock.systemUTC());
        ReadinessCheck check = BrainAssembly.readiness(router, Stores.inMemory()).stream()
                .filter(c -> c.name().equals("router")).findFirst().orElseThrow();
        assertTrue(check.call().status() == HealthCheckResponse.Status.UP);
        router.close();
        HealthCheckResponse stopping = check.call();
        assertEquals(HealthCheckResponse.Status.DOWN, stopping.status());
        assertEquals("the brain is stopping", stopping.details().get("error"));
    }

    @Test
    void aFeatureTurnedOffInItsNodeIsNotServedAndTheOthersAre() {
        startBrain(false, Map.of("mcp.enabled", "false"));
        assertEquals(404, request("POST", "/mcp", "{}", TOKEN).statusCode());
        JsonNode workers = call("GET", "/api/v1/workers", null, 200);
        assertTrue(workers.has("workers"), workers.toString());
        assertEquals(200, request("GET", "/", null, null).statusCode(), "the console's page is still at /");
    }

    @Test
    void aStartThatFailsClosesWhatItHadOpened() {
        BrainFeatureProvider broken = new BrainFeatureProvider() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public BrainFeature create(Config node, BrainContext context) {
                throw new PluginException("broken.setting is wrong: set it right");
            }
        };
        BrainAssembly assembly = new BrainAssembly(config(false, 0, Map.of("queue.provider", Unreachable.NAME)),
                Queues.providers().add(queue).build(), BrainAssembly.features().add(broken).build());
        PluginException e = assertThrows(PluginException.class, assembly::start);
        assertEquals("broken.setting is wrong: set it right", e.getMessage());
        assertEquals(1, queue.closed.get(), "the queue it had opened is closed");
    }

    /** The memory queue, whose count fails while {@link #reachable} is false, as PostgreSQL's does when it is down. */
    private static final class Unreachable implements TaskQueueProvider {
        static final String NAME = "unreachable";
        final AtomicBoolean reachable = new AtomicBoolean(true);
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public TaskQueue open(Settings settings, Clock clock) {
            TaskQueue real = Queues.providers().build().select("memory").open(settings, clock);
            return (TaskQueue) Proxy.newProxyInstance(TaskQueue.class.getClassLoader(), new Class<?>[] {TaskQueue.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("countQueued") && !reachable.get()) {
                            throw new QueueException("the task queue is unavailable: the database is gone");
                        }
                        if (method.getName().equals("close")) {
                            closed.incrementAndGet();
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
