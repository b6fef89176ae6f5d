package dev.efferent.brain.chat;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per conversation, kept only while someone holds or waits for it: a plain map of locks would grow with
 * every conversation ever seen (each console tab starts one). A {@link ReentrantLock}, not a monitor, so a
 * virtual thread that blocks while holding it does not pin its carrier.
 */
final class ConversationLocks {
    private final Map<String, Entry> entries = new HashMap<>();

    /** Runs {@code action} holding {@code key}'s lock. */
    void run(String key, Runnable action) {
        Entry e;
        synchronized (entries) {
            e = entries.computeIfAbsent(key, k -> new Entry());
            e.users++;
        }
        e.lock.lock();
        try {
            action.run();
        } finally {
            e.lock.unlock();
            synchronized (entries) {
                if (--e.users == 0) {
                    entries.remove(key);
                }
            }
        }
    }

    /** Conversations whose lock is held or awaited now. */
    int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        int users;
    }
}
