package dev.efferent.conversations;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConversationLanesTest {

    @Test
    void oneConversationInOrderOneAtATimeAndNothingKeptAfterwards() throws InterruptedException {
        ConversationLanes lanes = new ConversationLanes();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Integer> order = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(300);
        for (int i = 0; i < 300; i++) {
            int n = i;
            String key = i % 3 == 0 ? "console:same" : "console:other-" + i;
            lanes.post(key, () -> {
                if (key.endsWith("same")) {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    order.add(n);
                    Thread.onSpinWait();
                    inside.decrementAndGet();
                }
                done.countDown();
            });
        }
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(1, most.get(), "two messages of one conversation were handled at once");
        assertEquals(order.stream().sorted().toList(), order, "a conversation's work ran out of order");
        for (int i = 0; i < 100 && lanes.size() > 0; i++) {
            Thread.sleep(10);
        }
        assertEquals(0, lanes.size(), "lanes of conversations with nothing to do are not kept");
    }

    @Test
    void aFailureDoesNotStopTheConversation() throws InterruptedException {
        ConversationLanes lanes = new ConversationLanes();
        CountDownLatch after = new CountDownLatch(1);
        lanes.post("c", () -> {
            throw new IllegalStateException("boom");
        });
        lanes.post("c", after::countDown);
        assertTrue(after.await(5, TimeUnit.SECONDS));
    }
}
