package dev.efferent.conversations;

import dev.efferent.approvals.ApprovalSettings;
import dev.efferent.approvals.Approvals;
import dev.efferent.assistant.Assistant;
import dev.efferent.calls.Gateway;
import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.tools.LocalTools;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.TaskQueue;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One slow conversation never delays another: each has a lane of its own. */
class ChatServiceTest {
    private static final Duration SLOW = Duration.ofSeconds(5);
    @TempDir
    Path root;
    private TaskQueue queue;
    private Router router;
    private ChatService chat;
    private Approvals approvals;

    @AfterEach
    void stop() {
        if (chat != null) {
            chat.close();
            approvals.close();
            router.close();
            queue.close();
        }
    }

    @Test
    void anAssistantTakingFiveSecondsDelaysNoOtherConversation() throws Exception {
        Files.writeString(root.resolve("notes.txt"), "hello\n");
        var config = ConfigLoader.load(Map.of("tools.roots", root.toString()), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(false), queue, Stores.inMemory(),
                LocalTools.open(config),
                new ProtocolCodec(), Clock.systemUTC());
        Assistant slow = (message, replies) -> {
            try {
                Thread.sleep(SLOW);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            replies.send(new OutgoingMessage.Text("thought about it"));
        };
        chat = new ChatService(gateway(), slow, 2_000, Duration.ofMillis(100), Clock.systemUTC());
        router.addListener(chat);
        Recorder channel = new Recorder();
        chat.add(channel);

        Conversation a = new Conversation("test", "a");
        Conversation b = new Conversation("test", "b");
        channel.inbox.receive(new IncomingMessage(a, "ann", "what should I do today?"));
        Thread.sleep(100);
        long start = System.nanoTime();
        channel.inbox.receive(new IncomingMessage(b, "bob", "/read notes.txt"));

        Sent reply = channel.next(b);
        Sent checkpoint = channel.next(b);
        long replyMs = TimeUnit.NANOSECONDS.toMillis(reply.at - start);
        long checkpointMs = TimeUnit.NANOSECONDS.toMillis(checkpoint.at - start);
        System.out.printf("conversation b while a's assistant takes 5 s: reply after %d ms, checkpoint after %d ms%n",
                replyMs, checkpointMs);
        assertTrue(checkpoint.message.text().startsWith("[✅ Complete] read_file"), checkpoint.message.text());
        assertTrue(checkpoint.message.text().contains("hello"), checkpoint.message.text());
        assertTrue(checkpointMs < SLOW.toMillis() / 2, "b waited for a: " + checkpointMs + " ms");

        Sent answer = channel.next(a);
        assertEquals("thought about it", answer.message.text());
        assertTrue(answer.at > checkpoint.at, "a's slow answer came after b was served");

        // What was said is kept, so a console reloaded shows it again.
        var said = chat.history(b, 10);
        assertEquals("/read notes.txt", said.getFirst().text());
        assertTrue(said.getFirst().fromPerson());
        assertTrue(said.stream().anyMatch(e -> e.kind().equals("result") && e.text().contains("hello")), said.toString());
    }

    @Test
    void whatTheAssistantSendsGoesOutAtOnceAndCommandsAreAnsweredWhileItsTurnWaits() throws Exception {
        var config = ConfigLoader.load(Map.of("tools.roots", root.toString()), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(false), queue, Stores.inMemory(),
                LocalTools.open(config),
                new ProtocolCodec(), Clock.systemUTC());
        CountDownLatch answered = new CountDownLatch(1);
        Assistant asking = (message, replies) -> {
            replies.stream("thinking");
            try {
                // Waiting for the person, e.g. for an answer to a prompt.
                answered.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            replies.stream(" done");
            replies.finish();
        };
        chat = new ChatService(gateway(), asking, 2_000, Duration.ofMillis(100), Clock.systemUTC());
        router.addListener(chat);
        Recorder channel = new Recorder();
        chat.add(channel);
        Conversation a = new Conversation("test", "a");

        channel.inbox.receive(new IncomingMessage(a, "ann", "plan my day"));
        OutgoingMessage first = channel.next(a).message;
        assertEquals(new OutgoingMessage.Streamed(((OutgoingMessage.Streamed) first).replyId(), "thinking", "thinking",
                false), first, "sent while the turn still runs");
        channel.inbox.receive(new IncomingMessage(a, "ann", "/help"));
        assertTrue(channel.next(a).message.text().contains("/shell"), "a command is answered while the turn waits");
        answered.countDown();
        OutgoingMessage.Streamed end = (OutgoingMessage.Streamed) channel.next(a).message;
        assertEquals(" done", end.appended());
        OutgoingMessage.Streamed last = (OutgoingMessage.Streamed) channel.next(a).message;
        assertTrue(last.done());
        assertEquals("thinking done", last.text());
    }

    @Test
    void theMemoryStoreKeepsTheLastMessagesOfTheMostRecentConversations() {
        MemoryConversationStore store = new MemoryConversationStore(3, 2);
        for (int i = 0; i < 5; i++) {
            store.append(new ConversationEntry("test:a", true, "text", "m" + i, true, Optional.empty(),
                    Instant.EPOCH));
        }
        assertEquals(List.of("m2", "m3", "m4"), store.recent("test:a", 10).stream()
                .map(ConversationEntry::text).toList());
        assertEquals(List.of("m4"), store.recent("test:a", 1).stream().map(ConversationEntry::text).toList());
        store.append(new ConversationEntry("test:b", true, "text", "b", true, Optional.empty(), Instant.EPOCH));
        store.append(new ConversationEntry("test:c", true, "text", "c", true, Optional.empty(), Instant.EPOCH));
        assertEquals(List.of(), store.recent("test:a", 10), "the least recent conversation is let go");
    }

    private record Sent(Conversation to, OutgoingMessage message, long at) {
    }

    private static final class Recorder implements Channel {
        final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
        Inbox inbox;

        @Override
        public String name() {
            return "test";
        }

        @Override
        public void start(Inbox inbox) {
            this.inbox = inbox;
        }

        @Override
        public void send(Conversation conversation, OutgoingMessage message) {
            sent.add(new Sent(conversation, message, System.nanoTime()));
        }

        /** The next message sent to {@code to}, dropping others' (within 10 s). */
        Sent next(Conversation to) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < end) {
                Sent s = sent.poll(100, TimeUnit.MILLISECONDS);
                if (s != null && s.to.equals(to)) {
                    return s;
                }
                if (s != null) {
                    sent.add(s);
                    Thread.sleep(10);
                }
            }
            assertNotNull(null, "nothing sent to " + to + " within 10 s");
            return null;
        }
    }

    /** The front door over the test's router, with the default approval policy (closed after the test). */
    private Gateway gateway() {
        approvals = new Approvals(router, ApprovalSettings.defaults(), Stores.inMemory(), Clock.systemUTC());
        return new Gateway(router, approvals);
    }
}
