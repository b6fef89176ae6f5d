package dev.efferent.store.memory;

import dev.efferent.plugin.Settings;
import dev.efferent.store.Store;
import dev.efferent.store.contract.StoreContract;
import org.junit.jupiter.api.Test;

import java.time.Clock;

import static org.junit.jupiter.api.Assertions.assertFalse;

/** The in-memory store passes the contract. */
class MemoryStoreContractTest extends StoreContract {
    @Override
    protected Store openStore() {
        return new MemoryStoreProvider().open(Settings.empty(), Clock.systemUTC());
    }

    @Test
    void itKeepsNothingPastTheProcess() {
        assertFalse(store.durable());
    }
}
