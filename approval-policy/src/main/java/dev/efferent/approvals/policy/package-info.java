/**
 * The approval policy ({@link dev.efferent.approvals.policy.Policy}): {@link dev.efferent.approvals.policy.Rule}s
 * checked deny, then ask, then allow, and defaults that run what only reads and ask before what may destroy. The
 * program applies it to every tool call, whoever asked for it; the model never sees a way around it.
 */
package dev.efferent.approvals.policy;
