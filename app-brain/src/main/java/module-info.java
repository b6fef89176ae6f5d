/**
 * The brain: the always-reachable server that talks to the user, keeps the task queue and routes every
 * tool call. Its server, channels and launcher arrive with the brain/worker issue.
 */
module efferent.brain {
    requires efferent.router;
    requires efferent.core;
}
