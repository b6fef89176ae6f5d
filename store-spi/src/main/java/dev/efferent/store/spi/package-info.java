/** What a store provider implements: {@link dev.efferent.store.spi.StoreProvider} opens a {@link dev.efferent.store.Store}. */
package dev.efferent.store.spi;
