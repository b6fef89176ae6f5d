/**
 * What people say to the assistant, whatever the channel: the command handler, the checkpoints sent back as
 * tasks progress and end, and the notices about workers.
 */
package dev.efferent.conversations;
