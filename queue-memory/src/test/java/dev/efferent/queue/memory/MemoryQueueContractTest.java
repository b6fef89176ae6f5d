package dev.efferent.queue.memory;

import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.contract.TaskQueueContract;
import dev.efferent.plugin.Settings;

import java.time.Clock;

/** The in-memory queue passes the contract. */
class MemoryQueueContractTest extends TaskQueueContract {
    @Override
    protected TaskQueue openQueue(Clock clock) {
        return new MemoryQueueProvider().open(Settings.empty(), clock);
    }

    @Override
    protected boolean claimsOnAdd() {
        return true;
    }
}
