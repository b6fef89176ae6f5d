package dev.efferent.pairing;

import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.protocol.Message;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.WorkerRegister;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.contract.MutableClock;
import dev.efferent.router.PairedIdentity;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import dev.efferent.router.WorkerConnection;
import dev.efferent.router.WorkerLink;
import dev.efferent.store.Store;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
    private PairingCommands commands;

    @BeforeEach
    void start() {
        var config = ConfigLoader.load(Map.of(), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(true), queue, Stores.inMemory(),
                new ProtocolCodec(), Clock.systemUTC());
        pairing = Pairing.inFile(router, dir.resolve("paired-workers.json"), () -> URL, clock);
        commands = new PairingCommands(pairing, router);
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
        assertTrue(code.code().matches("[2-9A-HJKMNP-Z]{5}-[2-9A-HJKMNP-Z]{5}"), code.code());
        assertEquals("bin/efferent worker --brain-url " + URL + " --pair " + code.code(), code.command());
        assertEquals(clock.instant().plus(Duration.ofMinutes(10)), code.expiresAt());
        // Typed in lower case, without the dash: the same code.
        WorkerToken t = pairing.exchange(code.code().toLowerCase().replace("-", ""), "id-1", "laptop", "127.0.0.1");
        assertTrue(t.token().startsWith("efw_") && t.token().length() > 40, t.token());
        assertFalse(t.toString().contains(t.token()), "the token in a log line");
        assertEquals(PairingException.Kind.WRONG_CODE, assertThrows(PairingException.class,
                () -> pairing.exchange(code.code(), "id-2", "desktop", "127.0.0.1")).kind());

        PairingCode late = pairing.newCode("test");
        clock.advance(Duration.ofMinutes(10));
        PairingException e = assertThrows(PairingException.class, () -> pairing.exchange(late.code(), "id-2", "desk", "127.0.0.1"));
        assertEquals("the pairing code is wrong, used or expired: ask the brain for a new one (bin/efferent pair, or "
                + "/pair in the chat)", e.getMessage());
    }

    @Test
    void guessingIsSlowedPerAddressAndForEveryoneAndABurstCannotPass() throws Exception {
        PairingCode code = pairing.newCode("test");
        // Ten tries a minute from one address, sent together: counted before each lookup, none beyond the ten.
        var pool = Executors.newFixedThreadPool(8);
        List<Future<PairingException.Kind>> burst = IntStream.range(0, 40)
                .mapToObj(i -> pool.submit(() -> assertThrows(PairingException.class,
                        () -> pairing.exchange("22222-2222" + (i % 8 + 2), "id", "x", "203.0.113.9")).kind()))
                .toList();
        long wrong = 0;
        for (var f : burst) {
            wrong += f.get() == PairingException.Kind.WRONG_CODE ? 1 : 0;
        }
        pool.shutdown();
        assertEquals(Pairing.MAX_TRIES_PER_ADDRESS, wrong, "codes looked up for one address in a minute");
        // Even the right code waits there now: a guesser cannot tell a hit from the wait.
        assertEquals(PairingException.Kind.TOO_MANY, assertThrows(PairingException.class,
                () -> pairing.exchange(code.code(), "id", "laptop", "203.0.113.9")).kind());
        // Another address is not held up by that one, and a right code does not count against it.
        assertEquals("laptop", pairing.exchange(code.code(), "id", "laptop", "198.51.100.7").worker().name());
        // Many addresses together: sixty wrong a minute, then none for anyone.
        for (int i = 0; i < Pairing.MAX_WRONG_PER_MINUTE - Pairing.MAX_TRIES_PER_ADDRESS; i++) {
            String from = "192.0.2." + i;
            assertThrows(PairingException.class, () -> pairing.exchange("22222-22222", "id", "x", from));
        }
        PairingCode next = pairing.newCode("test");
        assertEquals(PairingException.Kind.TOO_MANY, assertThrows(PairingException.class,
                () -> pairing.exchange(next.code(), "id2", "desk", "198.51.100.7")).kind());
        clock.advance(Duration.ofMinutes(1));
        assertEquals("desk", pairing.exchange(next.code(), "id2", "desk", "198.51.100.7").worker().name());
    }

    @Test
    void aTokenIsBoundToItsWorkerAndKeptOnlyAsAHash() throws Exception {
        WorkerToken first = pairing.exchange(pairing.newCode("t").code(), "id-1", "laptop", "127.0.0.1");
        assertEquals("id-1", pairing.connecting(first.token()).orElseThrow().workerId());
        assertTrue(pairing.paired("id-1"));
        String kept = Files.readString(dir.resolve("paired-workers.json"));
        assertFalse(kept.contains(first.token()), kept);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                dir.resolve("paired-workers.json"))));

        // Another machine cannot take the name; the code is not used up by trying.
        PairingCode code = pairing.newCode("t");
        PairingException taken = assertThrows(PairingException.class, () -> pairing.exchange(code.code(), "id-2",
                "laptop", "127.0.0.1"));
        assertEquals(PairingException.Kind.NAME_TAKEN, taken.kind());
        assertEquals("desktop", pairing.exchange(code.code(), "id-2", "desktop", "127.0.0.1").worker().name());

        // The same machine pairing again gets a new token; the old one stops working.
        WorkerToken again = pairing.exchange(pairing.newCode("t").code(), "id-1", "laptop", "127.0.0.1");
        assertNotEquals(first.token(), again.token());
        assertTrue(pairing.connecting(first.token()).isEmpty());
        assertEquals(List.of("desktop", "laptop"), pairing.workers().stream().map(PairedWorker::name).toList());

        // Kept across a restart of a brain whose tasks are in memory.
        pairing.close();
        pairing = Pairing.inFile(router, dir.resolve("paired-workers.json"), () -> URL, clock);
        assertEquals("id-1", pairing.find(again.token()).orElseThrow().workerId());
        assertTrue(pairing.workers().stream().filter(w -> w.workerId().equals("id-1")).findFirst().orElseThrow()
                .lastConnected().isEmpty(), "never connected with the new token");
        pairing.connecting(again.token());
        assertTrue(pairing.workers().stream().filter(w -> w.workerId().equals("id-1")).findFirst().orElseThrow()
                .lastConnected().isPresent(), "its connection noted");
    }

    @Test
    void badNamesAndIdsAreRefused() {
        String code = pairing.newCode("t").code();
        assertEquals("the worker's name must be 1 to 64 letters, digits, '.', '_' or '-' (set it with --name)",
                assertThrows(PairingException.class, () -> pairing.exchange(code, "id", "my laptop\n", "127.0.0.1")).getMessage());
        assertEquals(PairingException.Kind.INVALID, assertThrows(PairingException.class,
                () -> pairing.exchange(code, "../../etc", "laptop", "127.0.0.1")).kind());
        assertEquals("laptop", pairing.exchange(code, "id", "laptop", "127.0.0.1").worker().name());
    }

    @Test
    void aRevocationByAnotherBrainEndsTheConnectionHere() {
        Store shared = Stores.inMemory();
        Pairing here = Pairing.inStore(router, shared, () -> URL, clock);
        Pairing there = Pairing.inStore(router, shared, () -> URL, clock);
        try {
            WorkerToken t = there.exchange(there.newCode("t").code(), "id-1", "laptop", "127.0.0.1");
            PairedWorker w = here.connecting(t.token()).orElseThrow();
            String id = w.workerId();
            FakeLink link = new FakeLink();
            WorkerConnection connection = router.connect(link, new PairedIdentity(id, w.name()));
            connection.receive(new WorkerRegister(Message.PROTOCOL_VERSION, id, "laptop", "host", "linux-amd64",
                    List.of(), 1));
            awaitOnline("laptop", true);

            // Revoked elsewhere: this brain's router is not told; its next check finds the token gone.
            PairingStore kept = new PairingStore.InStore(shared);
            kept.remove(PairingStore.Kind.TOKEN, kept.values(PairingStore.Kind.TOKEN).keySet().iterator().next());
            here.recheck();
            assertEquals("1008 worker token revoked", link.closed.join());
        } finally {
            here.close();
            there.close();
        }
    }

    @Test
    void aTokenCannotRegisterAsAnotherWorkerOrUnderAnotherName() {
        WorkerToken t = pairing.exchange(pairing.newCode("t").code(), "id-1", "laptop", "127.0.0.1");
        PairedWorker w = pairing.connecting(t.token()).orElseThrow();
        PairedIdentity paired = new PairedIdentity(w.workerId(), w.name());
        FakeLink link = new FakeLink();
        router.connect(link, paired).receive(new WorkerRegister(Message.PROTOCOL_VERSION,
                "id-of-another", "laptop", "host", "linux", List.of(), 1));
        assertEquals("1008 token paired to another worker id", link.closed.join());
        FakeLink renamed = new FakeLink();
        router.connect(renamed, paired).receive(new WorkerRegister(Message.PROTOCOL_VERSION, "id-1",
                "desktop", "host", "linux", List.of(), 1));
        assertEquals("1008 token paired under another name", renamed.closed.join());
        // The shared secret cannot stand in for the paired machine, by its name or by its id.
        FakeLink squatter = new FakeLink();
        router.connect(squatter).receive(new WorkerRegister(Message.PROTOCOL_VERSION, "id-squat", "laptop", "host",
                "linux", List.of(), 1));
        assertEquals("1008 a paired machine's id or name", squatter.closed.join());
        FakeLink sameId = new FakeLink();
        router.connect(sameId).receive(new WorkerRegister(Message.PROTOCOL_VERSION, "id-1", "other", "host",
                "linux", List.of(), 1));
        assertEquals("1008 a paired machine's id or name", sameId.closed.join());
        assertTrue(router.workers().stream().noneMatch(x -> x.id().equals("id-of-another") || x.id().equals("id-1")));
    }

    @Test
    void aRevokedMachineIsOfflineAtOnceEvenIfItNeverReadsTheClose() {
        WorkerToken t = pairing.exchange(pairing.newCode("t").code(), "id-1", "laptop", "127.0.0.1");
        PairedWorker w = pairing.connecting(t.token()).orElseThrow();
        FakeLink link = new FakeLink();
        router.connect(link, new PairedIdentity(w.workerId(), w.name())).receive(new WorkerRegister(
                Message.PROTOCOL_VERSION, "id-1", "laptop", "host", "linux", List.of(), 1));
        awaitOnline("laptop", true);
        // The fake link never reports itself closed: the router must not wait for that.
        assertTrue(pairing.revoke("id-1").disconnected());
        assertTrue(router.workers().stream().noneMatch(x -> x.id().equals("id-1") && x.online()));
        assertTrue(pairing.connecting(t.token()).isEmpty());
        // The connection time was kept apart from the token: nothing written back brings it to life.
        assertTrue(pairing.workers().isEmpty());
    }

    @Test
    void theChatPairsListsAndRevokes() {
        String pair = say("/pair");
        assertTrue(pair.matches("(?s)Pairing code: (\\S{11}) \\(works once, for 10 minutes\\)\\. On the machine to "
                + "join, run:\\n  bin/efferent worker --brain-url ws://brain\\.example:18789 --pair \\1"), pair);
        assertEquals("No machine joined with a pairing code yet. /pair makes one.", say("/workers paired"));
        pairing.exchange(pair.substring(14, 25), "id-1", "laptop", "127.0.0.1");
        assertTrue(say("/workers paired").startsWith("Paired machines:\n• laptop (id-1): paired "), say("/workers paired"));
        assertEquals("Revoked the token of laptop; it was not connected here. It cannot reconnect until it pairs "
                + "again.", say("/workers revoke laptop"));
        assertEquals("No machine is paired as 'laptop'; none is paired (machines joined with the shared worker "
                + "secret are shut out by changing worker.secret).", say("/workers revoke laptop"));
        assertTrue(commands.command(message("/workers")).isEmpty(), "/workers alone is the router's list");
    }

    private String say(String text) {
        List<OutgoingMessage> replies = commands.command(message(text)).orElseThrow();
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
