/**
 * The brain application: not exported.
 */
package dev.efferent.brain;
