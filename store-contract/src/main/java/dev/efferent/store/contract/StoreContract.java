package dev.efferent.store.contract;

import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import dev.efferent.store.StoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every store provider must do. A provider's test extends this class and opens a fresh, empty store; a durable
 * provider also opens a second store over the same data, as a second brain or a restart would.
 */
public abstract class StoreContract {
    private static final String OWNER = "efferent.store.contract";
    private static final Namespace<String> TEXT = new Namespace<>("contract.text", Codec.text());

    /** A value with a codec of its own, as an owner writes one. */
    record Fire(String schedule, int count) {
    }

    private static final Namespace<Fire> FIRES = new Namespace<>("contract.fires", Codec.of(
            f -> f.schedule() + "|" + f.count(),
            text -> new Fire(text.substring(0, text.indexOf('|')),
                    Integer.parseInt(text.substring(text.indexOf('|') + 1)))));

    protected Store store;

    /** A fresh, empty store. */
    protected abstract Store openStore();

    /** Another store over the same data as {@link #openStore()}'s, for a durable provider; else the same one. */
    protected Store reopen() {
        return store;
    }

    @BeforeEach
    void open() {
        store = openStore();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private Space<String> text() {
        return store.claim(TEXT, OWNER);
    }

    @Test
    void logsKeepTheirNewestEntries() {
        Space<String> records = text();
        for (int i = 0; i < 5; i++) {
            records.append("console:a", "a" + i, 3);
        }
        records.append("console:b", "b0", 3);
        assertEquals(List.of("a2", "a3", "a4"), records.tail("console:a", 10));
        assertEquals(List.of("a4"), records.tail("console:a", 1));
        assertEquals(List.of("b0"), records.tail("console:b", 10));
        assertEquals(List.of(), records.tail("console:never", 10));
        assertEquals(List.of("console:b", "console:a"), records.logs("console:", 10), "most recently written first");
        records.append("console:a", "a5", 3);
        assertEquals(List.of("console:a"), records.logs("console:", 1));
        assertEquals(List.of(), records.logs("telegram:", 10));
    }

    @Test
    void anEntryThatCannotBeReadIsLeftOutOfAListNotTheWholeList() {
        // As a value written by a newer version of its owner, or edited by hand.
        Space<String> picky = store.claim(new Namespace<>("contract.picky", Codec.of(v -> v, v -> {
            if (v.startsWith("bad")) {
                throw new IllegalArgumentException("not a value this version knows");
            }
            return v;
        })), OWNER);
        picky.put("a", "good");
        picky.put("b", "bad one");
        picky.put("c", "fine");
        assertEquals(Map.of("a", "good", "c", "fine"), picky.entries(10));
        StoreException one = assertThrows(StoreException.class, () -> picky.get("b"));
        assertTrue(one.getMessage().contains("'b'"), one.getMessage());
        picky.append("log", "first", 5);
        picky.append("log", "bad entry", 5);
        picky.append("log", "third", 5);
        assertEquals(List.of("first", "third"), picky.tail("log", 10));
    }

    @Test
    void valuesAreKeptReplacedAndRemoved() {
        Space<String> records = text();
        records.put("t1", "one");
        records.put("t2", "two");
        records.put("t1", "one again");
        assertEquals(Optional.of("one again"), records.get("t1"));
        assertEquals(Map.of("t1", "one again", "t2", "two"), records.entries(100));
        assertTrue(records.remove("t1"));
        assertFalse(records.remove("t1"));
        assertEquals(Optional.empty(), records.get("t1"));
        assertEquals(List.of("t2"), List.copyOf(records.entries(100).keySet()));
    }

    @Test
    void aValueIsReplacedOnlyFromWhatWasReadSoOfTwoWritersOneWins() {
        Space<String> records = text();
        records.put("s1", "next=1");
        assertTrue(records.compareAndSet("s1", "next=1", "next=2"), "the first writer wins");
        assertFalse(records.compareAndSet("s1", "next=1", "next=2 again"), "the second read an old value");
        assertEquals(Optional.of("next=2"), records.get("s1"));
        assertFalse(records.compareAndSet("none", "x", "y"), "nothing to replace");
        assertEquals(Optional.empty(), records.get("none"));
    }

    @Test
    void aValueIsAddedIfAbsentByOneWriterOnly() {
        Space<String> records = text();
        assertTrue(records.putIfAbsent("a-1", "first"));
        assertFalse(records.putIfAbsent("a-1", "second"));
        assertEquals(Optional.of("first"), records.get("a-1"));
    }

    @Test
    void entriesAreListedByKeyInBoundedPages() {
        Space<String> records = text();
        for (String key : List.of("d", "b", "a", "c", "e")) {
            records.put(key, key.toUpperCase(Locale.ROOT));
        }
        assertEquals(List.of("a", "b"), List.copyOf(records.entries(2).keySet()));
        assertEquals(List.of("c", "d"), List.copyOf(records.entries("b", 2).keySet()), "the page after b");
        assertEquals(Map.of("e", "E"), records.entries("d", 10));
        assertEquals(Map.of(), records.entries("e", 10));
        assertEquals(Map.of(), records.entries(0));
    }

    @Test
    void namespacesAreApartAndValuesApartFromLogs() {
        Space<String> text = text();
        Space<Fire> fires = store.claim(FIRES, OWNER);
        text.put("s1", "text");
        fires.put("s1", new Fire("s1", 3));
        text.append("s1", "logged", 5);
        assertEquals(Optional.of("text"), text.get("s1"));
        assertEquals(Optional.of(new Fire("s1", 3)), fires.get("s1"));
        assertEquals(List.of(), fires.tail("s1", 5), "a log of one namespace is not another's");
        assertEquals(List.of(), fires.logs("", 5));
        assertEquals(Map.of("s1", new Fire("s1", 3)), fires.entries(10), "a log is not a value");
    }

    @Test
    void valuesGoThroughTheirNamespacesCodec() {
        Space<Fire> fires = store.claim(FIRES, OWNER);
        fires.put("s1", new Fire("s1", 1));
        assertTrue(fires.compareAndSet("s1", new Fire("s1", 1), new Fire("s1", 2)));
        assertFalse(fires.compareAndSet("s1", new Fire("s1", 1), new Fire("s1", 3)));
        fires.append("log", new Fire("s1", 2), 2);
        assertEquals(List.of(new Fire("s1", 2)), fires.tail("log", 5));
        assertEquals(Optional.of("s1|2"), store.claim(new Namespace<>("contract.fires", Codec.text()), OWNER)
                .get("s1"), "kept as the codec wrote it");
    }

    @Test
    void aNamespaceHasOneOwner() {
        store.claim(TEXT, "efferent.scheduler");
        store.claim(TEXT, "efferent.scheduler");
        StoreException e = assertThrows(StoreException.class, () -> store.claim(TEXT, "efferent.agent"));
        assertEquals("namespace 'contract.text' is claimed by efferent.scheduler and again by efferent.agent: a "
                + "namespace has one owner; rename one of them (or leave one module off the module path)",
                e.getMessage());
    }

    @Test
    void badNamesKeysAndLimitsAreRefusedWithWhatWasWrong() {
        StoreException name = assertThrows(StoreException.class, () -> new Namespace<>("Schedules:", Codec.text()));
        assertTrue(name.getMessage().contains("such as 'scheduler.schedules'; got 'Schedules:'"), name.getMessage());
        Space<String> records = text();
        StoreException key = assertThrows(StoreException.class, () -> records.put("", "x"));
        assertEquals("a key is 1 to 500 characters, got 0: ''", key.getMessage());
        StoreException keep = assertThrows(StoreException.class, () -> records.append("log", "x", 0));
        assertTrue(keep.getMessage().startsWith("a log keeps at least 1 entry, got 0"), keep.getMessage());
    }

    @Test
    void whatWasWrittenIsReadByAnotherStoreOverTheSameData() {
        text().put("kept", "yes");
        text().append("log", "entry", 10);
        Store second = reopen();
        try {
            Space<String> again = second.claim(TEXT, OWNER);
            assertEquals(Optional.of("yes"), again.get("kept"));
            assertEquals(List.of("entry"), again.tail("log", 10));
        } finally {
            if (second != store) {
                second.close();
            }
        }
    }
}
