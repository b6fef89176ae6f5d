package dev.efferent.store.postgres;

import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A database whose queue kept records the old way (key prefixes in {@code record_values} and {@code record_logs},
 * the queue's migrations 2 and 3) is read back the new way: each key in its owner's namespace.
 */
class RecordsUpgradeTest {
    private final TestDatabase db = new TestDatabase();

    @AfterEach
    void dropSchema() {
        db.close();
    }

    private Space<String> space(Store store, String name) {
        return store.claim(new Namespace<>(name, Codec.text()), "efferent.test");
    }

    @Test
    void recordsWrittenTheOldWayAreReadInTheirOwnersNamespaces() {
        String s = db.schema;
        db.execute("CREATE SCHEMA " + s,
                // As the queue's migrations 2 and 3 made them.
                "CREATE TABLE " + s + ".record_logs (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, log text NOT "
                        + "NULL, data text NOT NULL, created_at timestamptz NOT NULL)",
                "CREATE INDEX record_logs_log_idx ON " + s + ".record_logs (log, seq)",
                "CREATE TABLE " + s + ".record_values (key text PRIMARY KEY, data text NOT NULL, updated_at timestamptz "
                        + "NOT NULL)",
                "INSERT INTO " + s + ".record_values VALUES ('schedule:s-abc', '{\"id\":\"s-abc\"}', now()), "
                        + "('agent:parked:t1', 'parked', now()), ('agent:child:a-1', 'child', now()), "
                        + "('worker:w1', 'known', now()), ('worker-token:h1', 'token', now()), "
                        + "('pairing-code:c1', 'code', now()), ('automation:def:backup', 'def', now()), "
                        + "('odd-key', 'kept anyway', now())",
                "INSERT INTO " + s + ".record_logs (log, data, created_at) VALUES ('conversation:console:a', 'hello', "
                        + "now()), ('conversation:telegram:1', 'hi', now()), ('conversation:console:a', 'again', now()), "
                        + "('approvals:rules', 'allow run_shell', now()), ('approval:k3x9', 'held', now()), "
                        + "('agent:context:console:a', 'context', now())");
        try (Store store = new PostgresStoreProvider().open(db.settings(), Clock.systemUTC())) {
            assertEquals(Optional.of("{\"id\":\"s-abc\"}"), space(store, "scheduler.schedules").get("s-abc"));
            assertEquals(Optional.of("parked"), space(store, "agent.parked").get("t1"));
            assertEquals(Optional.of("child"), space(store, "agent.children").get("a-1"));
            assertEquals(Map.of("w1", "known"), space(store, "router.workers").entries(10));
            assertEquals(Optional.of("token"), space(store, "pairing.tokens").get("h1"));
            assertEquals(Optional.of("code"), space(store, "pairing.codes").get("c1"));
            assertEquals(Optional.of("def"), space(store, "scheduler.automations").get("backup"));
            assertEquals(Map.of("odd-key", "kept anyway"), space(store, "records").entries(10));
            Space<String> conversations = space(store, "conversations");
            assertEquals(List.of("hello", "again"), conversations.tail("console:a", 10));
            assertEquals(List.of("console:a", "telegram:1"), conversations.logs("", 10), "newest first, as before");
            assertEquals(List.of("allow run_shell"), space(store, "approvals.rules").tail("added", 10));
            assertEquals(List.of("held"), space(store, "approvals.audit").tail("k3x9", 10));
            assertEquals(List.of("context"), space(store, "agent.contexts").tail("console:a", 10));
            conversations.append("telegram:1", "newer", 10);
            assertEquals(List.of("telegram:1", "console:a"), conversations.logs("", 10),
                    "an entry written after the move is newer than every moved one");
        }
        try (Store again = new PostgresStoreProvider().open(db.settings(), Clock.systemUTC())) {
            assertEquals(Optional.of("parked"), space(again, "agent.parked").get("t1"), "moved once, not twice");
        }
    }
}
