package dev.efferent.bench;

import dev.efferent.agent.Agent;
import dev.efferent.agent.AgentSettings;
import dev.efferent.agent.Models;
import dev.efferent.approvals.ApprovalSettings;
import dev.efferent.approvals.Approvals;
import dev.efferent.calls.Gateway;
import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.conversations.ChatService;
import dev.efferent.model.scripted.Received;
import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.model.scripted.Step;
import dev.efferent.model.spi.Model;
import dev.efferent.model.spi.ModelListener;
import dev.efferent.model.spi.ModelReply;
import dev.efferent.model.spi.ModelRequest;
import dev.efferent.router.Stores;
import dev.efferent.store.Store;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's own cost: a tool step (the model asks for {@code noop} → the brain runs it on a WebSocket worker →
 * the result reaches the model server again) beside the plain dispatch round trip of the same tool, and the delay
 * of the first streamed character from the model server to a channel, beside the model server's own.
 */
final class AgentBench {
    private static final int RUNS = 3;

    private AgentBench() {
    }

    static void run(boolean smoke) throws Exception {
        int turns = smoke ? 20 : 1_000;
        try (ScriptedModelServer model = ScriptedModelServer.start();
             BenchBrain brain = new BenchBrain("memory", Map.of())) {
            BenchWorker worker = BenchWorker.connect(brain.port(), "w1", 4);
            worker.registered.get(10, TimeUnit.SECONDS);
            Map<String, String> m = Map.of("base-url", model.openAiBaseUrl(), "name", "scripted");
            Timed timed = new Timed(Models.providers().select("openai").open(key -> Optional.ofNullable(m.get(key))));
            Store records = Stores.inMemory();
            Approvals approvals = new Approvals(brain.router,
                    ApprovalSettings.defaults(), records, Clock.systemUTC());
            Agent agent = new Agent(brain.router, timed, AgentSettings.defaults(), approvals, records,
                    Clock.systemUTC());
            ChatService chat = new ChatService(new Gateway(brain.router, approvals), agent, 2_000, Duration.ofSeconds(3), Clock.systemUTC());
            brain.router.addListener(chat);
            FirstPiece channel = new FirstPiece();
            chat.add(channel);
            Conversation c = new Conversation(FirstPiece.NAME, "bench");

            // The bench worker heartbeats only when asked; a run longer than two intervals would lose it.
            ScheduledExecutorService beat = Executors
                    .newSingleThreadScheduledExecutor();
            beat.scheduleAtFixedRate(worker::heartbeat, 5, 5, TimeUnit.SECONDS);
            // Three runs; each figure is the median of the runs' values.
            long[][] runs = new long[RUNS][];
            for (int run = 0; run < RUNS; run++) {
                Stats step = new Stats(turns);
                Stats own = new Stats(turns);
                for (int i = 0; i < turns + Math.min(200, turns); i++) {
                    chat.handle(new IncomingMessage(c, "bench", "/new")).get(10, TimeUnit.SECONDS);
                    model.then(Step.Reply.call("noop", "{}"), Step.Reply.text("ok"));
                    timed.calls = 0;
                    int before = model.received().size();
                    var said = chat.handle(new IncomingMessage(c, "bench", "run noop")).get(10, TimeUnit.SECONDS);
                    List<Received> r = model.received();
                    if (r.size() < before + 2) {
                        throw new IllegalStateException("turn " + i + " made " + (r.size() - before)
                                + " model call(s) instead of 2; it said: " + said);
                    }
                    if (i >= Math.min(200, turns)) {
                        // From the model's "call noop" to the request that carries its result.
                        step.add(r.get(before + 1).nanos() - r.get(before).nanos());
                        // The brain's own part: from the model's answer in hand to the next call handed to the client.
                        own.add(timed.secondCallStarted - timed.firstCallReturned);
                    }
                }
                Stats dispatch = BenchMain.dispatch(brain.router, turns);

                Stats throughBrain = new Stats(turns);
                Stats direct = new Stats(turns);
                HttpClient http = HttpClient.newHttpClient();
                for (int i = 0; i < turns; i++) {
                    model.then(Step.Reply.text("hello there"));
                    channel.first.set(0);
                    int before = model.received().size();
                    chat.handle(new IncomingMessage(c, "bench", "say hello")).get(10, TimeUnit.SECONDS);
                    throughBrain.add(channel.first.get() - model.received().get(before).nanos());

                    model.then(Step.Reply.text("hello there"));
                    direct.add(directFirstPiece(http, model.openAiBaseUrl()));
                }
                runs[run] = new long[]{step.percentile(50), step.percentile(99), own.percentile(50),
                        own.percentile(99), dispatch.percentile(50), dispatch.percentile(99),
                        throughBrain.percentile(50), throughBrain.percentile(99), direct.percentile(50),
                        direct.percentile(99)};
            }
            beat.shutdownNow();
            chat.close();
            agent.close();
            approvals.close();
            worker.close();

            long[] med = new long[runs[0].length];
            for (int i = 0; i < med.length; i++) {
                long[] values = new long[RUNS];
                for (int run = 0; run < RUNS; run++) {
                    values[run] = runs[run][i];
                }
                med[i] = Stats.median(values);
            }
            BenchMain.figure("agent.turns", String.valueOf(turns));
            BenchMain.figure("agent.step.server.p50", Stats.micros(med[0]));
            BenchMain.figure("agent.step.server.p99", Stats.micros(med[1]));
            BenchMain.figure("agent.step.brain.p50", Stats.micros(med[2]));
            BenchMain.figure("agent.step.brain.p99", Stats.micros(med[3]));
            BenchMain.figure("agent.dispatch.p50", Stats.micros(med[4]));
            BenchMain.figure("agent.dispatch.p99", Stats.micros(med[5]));
            BenchMain.figure("agent.overhead.p50", Stats.micros(med[2] - med[4]));
            BenchMain.figure("agent.overhead.ratio", String.format(Locale.ROOT, "%.1f×",
                    (double) (med[2] - med[4]) / med[4]));
            BenchMain.figure("agent.first-piece.brain.p50", Stats.micros(med[6]));
            BenchMain.figure("agent.first-piece.brain.p99", Stats.micros(med[7]));
            BenchMain.figure("agent.first-piece.server.p50", Stats.micros(med[8]));
            BenchMain.figure("agent.first-piece.server.p99", Stats.micros(med[9]));
        }
    }

    /** The model server's own delay: a request sent straight to it, until its first streamed text arrives. */
    private static long directFirstPiece(HttpClient http, String base) throws Exception {
        String body = "{\"model\":\"scripted\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        long start = System.nanoTime();
        HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(URI.create(base + "/chat/completions"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        long first = 0;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                if (first == 0 && line.contains("\"content\"")) {
                    first = System.nanoTime() - start;
                }
            }
        }
        return first;
    }

    /** The model, timed: when the first call of a turn returned and the second began. */
    private static final class Timed implements Model {
        private final Model model;
        volatile int calls;
        volatile long firstCallReturned;
        volatile long secondCallStarted;

        Timed(Model model) {
            this.model = model;
        }

        @Override
        public String describe() {
            return model.describe();
        }

        @Override
        public ModelReply complete(ModelRequest request,
                                                          ModelListener listener) {
            if (++calls == 2) {
                secondCallStarted = System.nanoTime();
            }
            ModelReply reply = model.complete(request, listener);
            if (calls == 1) {
                firstCallReturned = System.nanoTime();
            }
            return reply;
        }
    }

    /** A channel that notes when the first part of a streamed reply reaches it. */
    private static final class FirstPiece implements Channel {
        static final String NAME = "bench";
        final AtomicLong first = new AtomicLong();

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public void start(Inbox inbox) {
        }

        @Override
        public void send(Conversation conversation, OutgoingMessage message) {
            if (message instanceof OutgoingMessage.Streamed) {
                first.compareAndSet(0, System.nanoTime());
            }
        }
    }
}
