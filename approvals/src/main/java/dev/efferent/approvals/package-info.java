/**
 * The calls held for a person's yes ({@link dev.efferent.approvals.Approvals}): the brain's policy, the answers
 * (allow once, allow always, deny), the timeout and its fallback, and the record of each.
 */
package dev.efferent.approvals;
