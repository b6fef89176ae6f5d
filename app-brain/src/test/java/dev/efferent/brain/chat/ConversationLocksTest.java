package dev.efferent.brain.chat;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConversationLocksTest {

    @Test
    void oneConversationAtATimeAndNothingKeptAfterwards() throws InterruptedException {
        ConversationLocks locks = new ConversationLocks();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(200);
        for (int i = 0; i < 200; i++) {
            String key = "console:" + (i % 2 == 0 ? "same" : "other-" + i);
            Thread.ofVirtual().start(() -> {
                locks.run(key, () -> {
                    if (key.endsWith("same")) {
                        most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        Thread.onSpinWait();
                        inside.decrementAndGet();
                    }
                });
                done.countDown();
            });
        }
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(1, most.get(), "two messages of one conversation were handled at once");
        assertEquals(0, locks.size(), "locks of finished conversations are not kept");
    }
}
