/**
 * The contract every task queue provider must pass: extend
 * {@link dev.efferent.queue.contract.TaskQueueContract} in the provider's tests and open a fresh queue.
 */
module efferent.queue.contract {
    requires transitive efferent.queue.spi;
    requires transitive org.junit.jupiter.api;

    exports dev.efferent.queue.contract;
}
