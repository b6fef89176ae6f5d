/**
 * The store's API: a {@link dev.efferent.store.Store} hands each owner the {@link dev.efferent.store.Space} of a
 * {@link dev.efferent.store.Namespace} it claims; values and bounded logs of one type, written by its
 * {@link dev.efferent.store.Codec}.
 */
package dev.efferent.store;
