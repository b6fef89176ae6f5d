package dev.efferent.brain.mcp;

import dev.efferent.plugin.Ids;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * MCP sessions: the calls each client has running, by its request id, so that its {@code notifications/cancelled}
 * finds the task (request ids are the client's own, and every client starts at 0). At most {@link #MAX} are kept
 * (more only while calls run in them); one idle for {@link #IDLE} is forgotten. A session id the brain does not know
 * (it restarted) is taken as a new one.
 */
final class McpSessions {
    static final int MAX = 1000;
    static final Duration IDLE = Duration.ofHours(1);

    /** A call running in a session: its task, and whether the client cancelled it. */
    static final class Call {
        final String taskId;
        volatile boolean cancelled;

        Call(String taskId) {
            this.taskId = taskId;
        }
    }

    /** One client's session: its running calls, by the client's request id. */
    static final class Session {
        final Map<String, Call> calls = new ConcurrentHashMap<>();
        volatile Instant used;

        Session(Instant now) {
            this.used = now;
        }
    }

    private final Clock clock;
    private final LinkedHashMap<String, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);

    McpSessions(Clock clock) {
        this.clock = clock;
    }

    /** A new session's id. */
    synchronized String open() {
        String id = Ids.next() + Ids.next();
        sessions.put(id, new Session(clock.instant()));
        trim();
        return id;
    }

    /** Session {@code id}. */
    synchronized Session get(String id) {
        Session s = sessions.computeIfAbsent(id, k -> new Session(clock.instant()));
        s.used = clock.instant();
        trim();
        return s;
    }

    /** Forgets session {@code id}; whether it was there. */
    synchronized boolean close(String id) {
        return sessions.remove(id) != null;
    }

    private void trim() {
        Instant idle = clock.instant().minus(IDLE);
        sessions.values().removeIf(s -> s.used.isBefore(idle) && s.calls.isEmpty());
        // The least recently used first, but never one with calls running: their cancels must still find them.
        var oldest = sessions.entrySet().iterator();
        while (sessions.size() > MAX && oldest.hasNext()) {
            if (oldest.next().getValue().calls.isEmpty()) {
                oldest.remove();
            }
        }
    }
}
