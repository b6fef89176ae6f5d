package dev.efferent.pairing;

import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.queue.Records;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.contract.MutableClock;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.WorkerConnection;
import dev.efferent.router.WorkerLink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Codes that work once and expire, tokens bound to a worker id, guessing slowed, revocation seen by every brain. */
class PairingTest {
    private static final String URL = "ws://brain.example:18789";

    @TempDir
    Path dir;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-23T10:00:00Z"));
    private TaskQueue queue;
    private Router router;
    private Pairing pairing;

    @BeforeEach
    void start() {
        var config = ConfigLoader.load(Optional.empty(), Map.of(), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(true), queue, Optional.empty(), new ProtocolCodec(),
                Clock.systemUTC());
        pairing = Pairing.open(router, Optional.empty(), dir.resolve("paired-workers.json"), () -> URL, clock);
    }

    @AfterEach
    void stop() {
        pairing.close();
        router.close();
        queue.close();
    }

    @Test
    void aCodeWorksOnceForTenMinutes() {
        PairingCode code = pairing.newCode("test");
        assertTrue(code.code().matches("[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}"), code.code());
        assertEquals("bin/efferent worker --brain-url " + URL + " --pair " + code.code(), code.command());
        assertEquals(clock.instant().plus(Duration.ofMinutes(10)), code.expiresAt());
        // Typed in lower case, without the dash: the same code.
        WorkerToken t = pairing.exchange(code.code().toLowerCase().replace("-", ""), "id-1", "laptop");
        assertTrue(t.token().startsWith("efw_") && t.token().length() > 40, t.token());
        assertFalse(t.toString().contains(t.token()), "the token in a log line");
        assertEquals(PairingException.Kind.WRONG_CODE, assertThrows(PairingException.class,
                () -> pairing.exchange(code.code(), "id-2", "desktop")).kind());

        PairingCode late = pairing.newCode("test");
        clock.advance(Duration.ofMinutes(10));
        PairingException e = assertThrows(PairingException.class, () -> pairing.exchange(late.code(), "id-2", "desk"));
        assertEquals("the pairing code is wrong, used or expired: ask the brain for a new one (bin/efferent pair, or "
                + "/pair in the chat)", e.getMessage());
    }

    @Test
    void guessingIsSlowedToTenWrongCodesAMinute() {
        PairingCode code = pairing.newCode("test");
        IntStream.range(0, Pairing.MAX_WRONG_PER_MINUTE).forEach(i -> assertThrows(PairingException.class,
                () -> pairing.exchange("2222-222" + (i % 8 + 2), "id", "x")));
        // Even the right code waits now: a guesser cannot tell a hit from the wait.
        assertEquals(PairingException.Kind.TOO_MANY, assertThrows(PairingException.class,
                () -> pairing.exchange(code.code(), "id", "laptop")).kind());
        clock.advance(Duration.ofMinutes(1));
        assertEquals("laptop", pairing.exchange(code.code(), "id", "laptop").worker().name());
    }

    @Test
    void aTokenIsBoundToItsWorkerAndKeptOnlyAsAHash() throws Exception {
        WorkerToken first = pairing.exchange(pairing.newCode("t").code(), "id-1", "laptop");
        assertEquals("id-1", pairing.connecting(first.token()).orElseThrow().workerId());
        assertTrue(pairing.paired("id-1"));
        String kept = Files.readString(dir.resolve("paired-workers.json"));
        assertFalse(kept.contains(first.token()), kept);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                dir.resolve("paired-workers.json"))));

        // Another machine cannot take the name; the code is not used up by trying.
        PairingCode code = pairing.newCode("t");
        PairingException taken = assertThrows(PairingException.class, () -> pairing.exchange(code.code(), "id-2",
                "laptop"));
        assertEquals(PairingException.Kind.NAME_TAKEN, taken.kind());
        assertEquals("desktop", pairing.exchange(code.code(), "id-2", "desktop").worker().name());

        // The same machine pairing again gets a new token; the old one stops working.
        WorkerToken again = pairing.exchange(pairing.newCode("t").code(), "id-1", "laptop");
        assertNotEquals(first.token(), again.token());
        assertTrue(pairing.connecting(first.token()).isEmpty());
        assertEquals(List.of("desktop", "laptop"), pairing.workers().stream().map(PairedWorker::name).toList());

        // Kept across a restart of a brain whose tasks are in memory.
        pairing.close();
        pairing = Pairing.open(router, Optional.empty(), dir.resolve("paired-workers.json"), () -> URL, clock);
        assertEquals("id-1", pairing.find(again.token()).orElseThrow().workerId());
        assertTrue(pairing.workers().stream().filter(w -> w.workerId().equals("id-1")).findFirst().orElseThrow()
                .lastConnected().isEmpty(), "never connected with the new token");
    }

    @Test
    void badNamesAndIdsAreRefused() {
        String code = pairing.newCode("t").code();
        assertEquals("the worker's name must be 1 to 64 letters, digits, '.', '_' or '-' (set it with --name)",
                assertThrows(PairingException.class, () -> pairing.exchange(code, "id", "my laptop\n")).getMessage());
        assertEquals(PairingException.Kind.INVALID, assertThrows(PairingException.class,
                () -> pairing.exchange(code, "../../etc", "laptop")).kind());
        assertEquals("laptop", pairing.exchange(code, "id", "laptop").worker().name());
    }

    @Test
    void aRevocationByAnotherBrainEndsTheConnectionHere() {
        Records shared = Records.inMemory();
        Pairing here = Pairing.open(router, Optional.of(shared), dir.resolve("unused"), () -> URL, clock);
        Pairing there = Pairing.open(router, Optional.of(shared), dir.resolve("unused"), () -> URL, clock);
        try {
            WorkerToken t = there.exchange(there.newCode("t").code(), "id-1", "laptop");
            String id = here.connecting(t.token()).orElseThrow().workerId();
            FakeLink link = new FakeLink();
            WorkerConnection connection = router.connect(link, Optional.of(id));
            connection.receive(new WorkerRegister(Message.PROTOCOL_VERSION, id, "laptop", "host", "linux-amd64",
                    List.of(), 1));
            awaitOnline("laptop", true);

            // Revoked elsewhere: this brain's router is not told; its next check finds the token gone.
            shared.remove(shared.values("worker-token:").keySet().iterator().next());
            here.recheck();
            assertEquals("1008 worker token revoked", link.closed.join());
        } finally {
            here.close();
            there.close();
        }
    }

    @Test
    void aTokenCannotRegisterAsAnotherWorker() {
        WorkerToken t = pairing.exchange(pairing.newCode("t").code(), "id-1", "laptop");
        FakeLink link = new FakeLink();
        WorkerConnection connection = router.connect(link, Optional.of(pairing.connecting(t.token()).orElseThrow()
                .workerId()));
        connection.receive(new WorkerRegister(Message.PROTOCOL_VERSION, "id-of-another", "laptop", "host", "linux",
                List.of(), 1));
        assertEquals("1008 token paired to another worker id", link.closed.join());
        assertTrue(router.workers().stream().noneMatch(w -> w.id().equals("id-of-another")));
    }

    @Test
    void theChatPairsListsAndRevokes() {
        String pair = say("/pair");
        assertTrue(pair.matches("(?s)Pairing code: (\\S{9}) \\(works once, for 10 minutes\\)\\. On the machine to "
                + "join, run:\\n  bin/efferent worker --brain-url ws://brain\\.example:18789 --pair \\1"), pair);
        assertEquals("No machine joined with a pairing code yet. /pair makes one.", say("/workers paired"));
        pairing.exchange(pair.substring(14, 23), "id-1", "laptop");
        assertTrue(say("/workers paired").startsWith("Paired machines:\n• laptop (id-1): paired "), say("/workers paired"));
        assertEquals("Revoked the token of laptop; it was not connected here. It cannot reconnect until it pairs "
                + "again.", say("/workers revoke laptop"));
        assertEquals("No machine is paired as 'laptop'; none is paired (machines joined with the shared worker "
                + "secret are shut out by changing worker.secret).", say("/workers revoke laptop"));
        assertTrue(pairing.command(message("/workers")).isEmpty(), "/workers alone is the router's list");
    }

    private String say(String text) {
        List<OutgoingMessage> replies = pairing.command(message(text)).orElseThrow();
        return ((OutgoingMessage.Text) replies.getFirst()).text();
    }

    private static IncomingMessage message(String text) {
        return new IncomingMessage(new Conversation("console", "c1"), "me", text);
    }

    private void awaitOnline(String name, boolean online) {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < end) {
            if (router.workers().stream().anyMatch(w -> w.name().equals(name) && w.online() == online)) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError(name + " did not become " + (online ? "online" : "offline"));
    }

    /** A transport that notes how it was closed. */
    private static final class FakeLink implements WorkerLink {
        final CompletableFuture<String> closed = new CompletableFuture<>();

        @Override
        public void send(Message message) {
        }

        @Override
        public void close(int code, String reason) {
            closed.complete(code + " " + reason);
        }

        @Override
        public String describe() {
            return "test";
        }
    }
}
