/** The store contract suite: {@link dev.efferent.store.contract.StoreContract}. */
package dev.efferent.store.contract;
