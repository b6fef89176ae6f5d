package dev.efferent.store.postgres;

import dev.efferent.store.Store;
import dev.efferent.store.contract.StoreContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The PostgreSQL store passes the contract, in a schema of its own per test. */
class PostgresStoreContractTest extends StoreContract {
    private final TestDatabase db = new TestDatabase();

    @Override
    protected Store openStore() {
        return new PostgresStoreProvider().open(db.settings(), Clock.systemUTC());
    }

    @Override
    protected Store reopen() {
        return openStore();
    }

    @AfterEach
    void dropSchema() {
        db.close();
    }

    @Test
    void itOutlivesTheProcess() {
        assertTrue(store.durable());
    }
}
