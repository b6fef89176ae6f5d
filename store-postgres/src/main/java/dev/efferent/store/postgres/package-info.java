/** The PostgreSQL store. */
package dev.efferent.store.postgres;
