package dev.efferent.worker;

import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.WorkerAck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker process against a {@link FakeBrain}: a link that never registers, falls silent or drops is given up
 * within seconds and a new one opened; a quiet link whose brain answers pings is kept.
 */
@Timeout(60)
class WorkerLinkTest {
    private static final Duration CONNECT = Duration.ofSeconds(20);
    /** Heartbeats far apart: only the link watch can notice anything within a test. */
    private static final String ACK = new ProtocolCodec().encode(new WorkerAck("w1", 0, 60_000));
    private static final Map<String, String> FAST_RETRY = Map.of("EFFERENT_WORKER_RECONNECT_INITIAL", "100ms");

    @TempDir
    Path dir;

    private WorkerProcess worker(FakeBrain brain, Map<String, String> env) throws Exception {
        return WorkerProcess.start(dir, "w", brain.url(), dir.resolve("state"), env);
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    @Test
    void aRegisterThatGetsNoAckIsGivenUpAndRetried() throws Exception {
        Map<String, String> env = Map.of("EFFERENT_WORKER_RECONNECT_INITIAL", "100ms",
                "EFFERENT_WORKER_REGISTER__TIMEOUT", "1500ms");
        try (FakeBrain brain = new FakeBrain(true); WorkerProcess w = worker(brain, env)) {
            FakeBrain.Link first = brain.nextLink(CONNECT);
            first.next("worker:register", Duration.ofSeconds(10));
            FakeBrain.Link second = brain.nextLink(Duration.ofSeconds(5));
            long ms = (second.acceptedNanos() - first.acceptedNanos()) / 1_000_000;
            System.out.println("unanswered register given up and retried after " + ms + " ms");
            assertTrue(ms >= 1400 && ms < 3000, "retried after " + ms + " ms");
            String log = w.awaitLog("No worker:ack from " + brain.url() + " within 1500ms; retrying in ",
                    Duration.ofSeconds(5));
            assertTrue(log.contains("(attempt 1)"), log);
        }
    }

    @Test
    void anUpgradedLinkThatSaysNothingIsGivenUpWithinTheBrainTimeout() throws Exception {
        try (FakeBrain brain = new FakeBrain(false); WorkerProcess w = worker(brain, FAST_RETRY)) {
            FakeBrain.Link first = brain.nextLink(CONNECT);
            FakeBrain.Link second = brain.nextLink(Duration.ofSeconds(8));
            long ms = (second.acceptedNanos() - first.acceptedNanos()) / 1_000_000;
            System.out.println("silent link before the ack given up and retried after " + ms + " ms, "
                    + first.pings() + " pings");
            assertTrue(ms >= 2900 && ms < 4500, "retried after " + ms + " ms");
            assertTrue(first.pings() >= 1, "the worker pinged the quiet link");
            w.awaitLog("Lost the connection to " + brain.url() + " before worker:ack: no frame, ping or pong from "
                    + brain.url() + " for 3", Duration.ofSeconds(5));
        }
    }

    @Test
    void aLinkThatDropsBetweenTheUpgradeAndTheAckIsNoticedAtOnce() throws Exception {
        try (FakeBrain brain = new FakeBrain(true); WorkerProcess w = worker(brain, FAST_RETRY)) {
            FakeBrain.Link first = brain.nextLink(CONNECT);
            first.next("worker:register", Duration.ofSeconds(10));
            long dropped = System.nanoTime();
            first.drop();
            brain.nextLink(Duration.ofSeconds(5));
            long ms = millisSince(dropped);
            System.out.println("link dropped before the ack: new connection after " + ms + " ms");
            assertTrue(ms < 1500, "noticed after " + ms + " ms");
            w.awaitLog("Lost the connection to " + brain.url() + " before worker:ack: connection lost: the socket "
                    + "ended without a WebSocket close; retrying in ", Duration.ofSeconds(5));
        }
    }

    @Test
    void aBrainThatFallsSilentAfterTheAckIsDroppedWithinThreeSeconds() throws Exception {
        try (FakeBrain brain = new FakeBrain(true); WorkerProcess w = worker(brain, FAST_RETRY)) {
            FakeBrain.Link first = brain.nextLink(CONNECT);
            first.next("worker:register", Duration.ofSeconds(10));
            first.send(ACK);
            w.awaitLog("Registered with brain", Duration.ofSeconds(5));
            Thread.sleep(1500);
            long silent = System.nanoTime();
            first.silence();
            brain.nextLink(Duration.ofSeconds(8));
            long ms = millisSince(silent);
            System.out.println("brain silent after the ack: new connection " + ms + " ms after it stopped answering");
            assertTrue(ms < 4500, "noticed after " + ms + " ms");
            w.awaitLog("Disconnected from " + brain.url() + ": no frame, ping or pong from " + brain.url() + " for 3",
                    Duration.ofSeconds(5));
        }
    }

    @Test
    void aLinkThatDropsWithoutACloseIsNoticedAtOnce() throws Exception {
        try (FakeBrain brain = new FakeBrain(true); WorkerProcess w = worker(brain, FAST_RETRY)) {
            FakeBrain.Link first = brain.nextLink(CONNECT);
            first.next("worker:register", Duration.ofSeconds(10));
            first.send(ACK);
            w.awaitLog("Registered with brain", Duration.ofSeconds(5));
            long dropped = System.nanoTime();
            first.drop();
            brain.nextLink(Duration.ofSeconds(5));
            long ms = millisSince(dropped);
            System.out.println("dropped link: new connection after " + ms + " ms");
            assertTrue(ms < 1500, "noticed after " + ms + " ms");
            w.awaitLog("the socket ended without a WebSocket close", Duration.ofSeconds(5));
        }
    }

    @Test
    void aQuietBrainThatAnswersPingsIsKept() throws Exception {
        try (FakeBrain brain = new FakeBrain(true); WorkerProcess w = worker(brain, FAST_RETRY)) {
            FakeBrain.Link first = brain.nextLink(CONNECT);
            first.next("worker:register", Duration.ofSeconds(10));
            first.send(ACK);
            w.awaitLog("Registered with brain", Duration.ofSeconds(5));
            Thread.sleep(6000);
            System.out.println("quiet but answering brain: " + first.pings() + " pings in 6 s, "
                    + brain.connections() + " connection(s)");
            assertEquals(1, brain.connections(), w.log());
            assertTrue(first.pings() >= 4, "pinged " + first.pings() + " times");
        }
    }
}
