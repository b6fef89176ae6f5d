/**
 * The contract every store provider must pass: extend {@link dev.efferent.store.contract.StoreContract} in the
 * provider's tests and open a fresh store.
 */
module efferent.store.contract {
    requires transitive efferent.store.spi;
    requires transitive org.junit.jupiter.api;

    exports dev.efferent.store.contract;
}
