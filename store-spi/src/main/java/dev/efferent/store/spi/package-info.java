/**
 * What a store provider implements: {@link dev.efferent.store.spi.StoreProvider} opens a
 * {@link dev.efferent.store.Store}, usually {@link dev.efferent.store.spi.TypedStore} over its own
 * {@link dev.efferent.store.spi.TextStore}.
 */
package dev.efferent.store.spi;
