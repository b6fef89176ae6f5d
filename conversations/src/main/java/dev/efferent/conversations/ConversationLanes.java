package dev.efferent.conversations;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * One lane per conversation: what is posted to a conversation (handling a message, sending a reply, a checkpoint)
 * runs in order, one at a time, on a virtual thread of its own, so a slow conversation never delays another. A
 * lane lives only while it has work: nothing is kept for conversations that went quiet.
 */
final class ConversationLanes {
    private static final System.Logger LOG = System.getLogger(ConversationLanes.class.getName());
    private final Map<String, ArrayDeque<Runnable>> lanes = new HashMap<>();
    private volatile boolean closed;

    /** Runs {@code work} in {@code key}'s lane, after what was posted there before. */
    void post(String key, Runnable work) {
        synchronized (lanes) {
            if (closed) {
                return;
            }
            ArrayDeque<Runnable> lane = lanes.get(key);
            if (lane != null) {
                lane.add(work);
                return;
            }
            lane = new ArrayDeque<>();
            lane.add(work);
            lanes.put(key, lane);
        }
        Thread.ofVirtual().name("efferent-conversation").start(() -> drain(key));
    }

    private void drain(String key) {
        boolean emptied = false;
        try {
            while (true) {
                Runnable next;
                synchronized (lanes) {
                    ArrayDeque<Runnable> lane = lanes.get(key);
                    next = lane.poll();
                    if (next == null) {
                        lanes.remove(key);
                        emptied = true;
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "Work in conversation " + key + " failed; the conversation goes on", e);
                }
            }
        } finally {
            if (!emptied) {
                // An Error ended this thread: the lane must not be left with nobody to drain it.
                LOG.log(Level.ERROR, "A conversation lane ({0}) stopped on an error; it goes on with what is left", key);
                Thread.ofVirtual().name("efferent-conversation").start(() -> drain(key));
            }
        }
    }

    /** Conversations with work waiting or running. */
    int size() {
        synchronized (lanes) {
            return lanes.size();
        }
    }

    /** Takes no more work, and waits up to {@code grace} for what was posted to be done. */
    void close(Duration grace) {
        synchronized (lanes) {
            closed = true;
        }
        long end = System.nanoTime() + grace.toNanos();
        while (size() > 0 && System.nanoTime() < end) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
