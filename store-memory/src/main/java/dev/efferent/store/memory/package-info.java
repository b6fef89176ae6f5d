/** The in-memory store. */
package dev.efferent.store.memory;
