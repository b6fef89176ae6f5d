/**
 * Wire messages between the brain and its workers (protocol v1) and their JSON codec.
 */
package dev.efferent.protocol;
