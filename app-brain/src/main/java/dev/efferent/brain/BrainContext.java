package dev.efferent.brain;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.approvals.Approvals;
import dev.efferent.calls.Gateway;
import dev.efferent.conversations.ChatService;
import dev.efferent.pairing.Pairing;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.router.Router;
import dev.efferent.scheduler.Scheduler;

/**
 * The parts of a brain its features are built from ({@link BrainFeatureProvider#create}); one of each per brain.
 *
 * @param router    routes every call
 * @param gateway   the one front door for a tool call
 * @param approvals the policy and the calls held for a yes
 * @param chat      every conversation
 * @param scheduler schedules and reminders
 * @param pairing   machines joined by pairing, and their tokens
 * @param json      the brain's one JSON mapper
 * @param views     how tasks, workers and errors are shown as JSON
 * @param guard     the filter every request passes, checked again on a WebSocket upgrade
 * @param apiToken  the token of the REST API, the console, MCP clients and the metrics
 * @param workers   what lets a worker in: the worker secret or a paired machine's token
 * @param codec     the worker protocol's codec, with the brain's frame limit
 * @param version   the brain's version, as told to clients
 */
public record BrainContext(Router router, Gateway gateway, Approvals approvals, ChatService chat, Scheduler scheduler,
                           Pairing pairing, ObjectMapper json, Views views, RequestGuard guard, BearerToken apiToken,
                           WorkerCredentials workers, ProtocolCodec codec, String version) {
}
