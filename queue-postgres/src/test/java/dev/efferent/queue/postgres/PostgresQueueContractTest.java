package dev.efferent.queue.postgres;

import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.contract.TaskQueueContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.time.Clock;
import java.util.Map;

/** The PostgreSQL queue passes the contract against a real server. */
class PostgresQueueContractTest extends TaskQueueContract {
    private static TestDatabase database;

    @BeforeAll
    static void createSchema() {
        database = new TestDatabase();
    }

    @AfterAll
    static void dropSchema() {
        database.close();
    }

    @Override
    protected TaskQueue openQueue(Clock clock) {
        TaskQueue queue = new PostgresQueueProvider().open(database.settings(Map.of()), clock);
        database.execute("TRUNCATE " + database.schema + ".tasks");
        return queue;
    }

    @Override
    protected boolean claimsOnAdd() {
        return true;
    }
}
