/**
 * The worker application: not exported.
 */
package dev.efferent.worker;
